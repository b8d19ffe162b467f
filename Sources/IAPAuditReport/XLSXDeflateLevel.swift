import Glibc

/// The workbooks' parts are deflated at zlib's fastest level (1) instead of libxlsxwriter's fixed default (6).
///
/// libxlsxwriter (1.1.4, Debian 12) zips every part of a workbook through minizip's `zipOpenNewFileInZip4_64`
/// with `Z_DEFAULT_COMPRESSION` and offers no setting for it. This executable defines that function, so the
/// dynamic linker binds libxlsxwriter's call to it (an executable's definitions come first), and it calls
/// minizip's own (`dlsym(RTLD_NEXT)`) with level 1. Measured on the 1M benchmark's workbook (46,484 findings):
/// deflating took 0.53 s of the 1.5 s it takes to write, at level 6; at level 1 the file is 5.8 MB instead of
/// 4.8 MB and the write about 0.4 s shorter, in a full run and in a nightly one. Where the binding does not
/// happen (another link), the workbooks are as before: level 6.
///
/// The parameters are minizip 1.1's (`zip.h`): `zipFile`, the part's name, `zip_fileinfo*`, the local and
/// global extra fields with their sizes (`uInt`), a comment, the method, the level, `raw`, `windowBits`,
/// `memLevel`, `strategy`, a password, `crcForCrypting`, `versionMadeBy`, `flagBase` (`uLong`), `zip64`.
@_cdecl("zipOpenNewFileInZip4_64")
public func zipOpenNewFileInZip4_64(
    _ file: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?, _ info: UnsafeRawPointer?,
    _ localExtra: UnsafeRawPointer?, _ localExtraSize: UInt32, _ globalExtra: UnsafeRawPointer?, _ globalExtraSize: UInt32,
    _ comment: UnsafePointer<CChar>?, _ method: Int32, _ level: Int32, _ raw: Int32, _ windowBits: Int32, _ memLevel: Int32,
    _ strategy: Int32, _ password: UnsafePointer<CChar>?, _ crcForCrypting: UInt, _ versionMadeBy: UInt, _ flagBase: UInt,
    _ zip64: Int32
) -> Int32 {
    guard let open = MinizipOpen.next else { return MinizipOpen.internalError }
    return open(
        file, name, info, localExtra, localExtraSize, globalExtra, globalExtraSize, comment, method, MinizipOpen.level, raw,
        windowBits, memLevel, strategy, password, crcForCrypting, versionMadeBy, flagBase, zip64)
}

/// minizip's `zipOpenNewFileInZip4_64`, found after this executable's.
enum MinizipOpen {
    typealias Function =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeRawPointer?, UnsafeRawPointer?, UInt32, UnsafeRawPointer?, UInt32,
            UnsafePointer<CChar>?, Int32, Int32, Int32, Int32, Int32, Int32, UnsafePointer<CChar>?, UInt, UInt, UInt, Int32
        ) -> Int32

    /// zlib's `Z_BEST_SPEED`.
    static let level: Int32 = 1

    /// minizip's `ZIP_INTERNALERROR` (libxlsxwriter then reports that it could not add the part).
    static let internalError: Int32 = -104

    /// `RTLD_NEXT` is `(void *) -1` in glibc's dlfcn.h (a macro Swift does not import).
    static let next: Function? = dlsym(UnsafeMutableRawPointer(bitPattern: -1), "zipOpenNewFileInZip4_64").map {
        unsafeBitCast($0, to: Function.self)
    }
}
