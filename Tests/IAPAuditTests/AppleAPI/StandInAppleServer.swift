import Foundation

/// A stand-in for Apple's App Store Server API on 127.0.0.1 (an ephemeral port), for the `ask-apple` tests: one thread
/// accepts, reads a GET, asks `respond` for the answer and closes the connection. Nothing leaves the machine.
final class StandInAppleServer: @unchecked Sendable {
    /// A request as received: its path and its headers (names lowercased).
    struct Request {
        let path: String
        let headers: [String: String]
    }

    /// An answer to send: status, extra headers, body.
    struct Reply {
        var status: Int
        var headers: [String: String] = [:]
        var body: String = ""
    }

    let port: UInt16
    private let listener: Int32
    private let respond: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var received: [Request] = []
    private var thread: Thread?

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in order.
    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    init(respond: @escaping @Sendable (Request) -> Reply) throws {
        self.respond = respond
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard listener >= 0 else { throw Failure(description: "socket: \(errno)") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw Failure(description: "bind/listen: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        self.thread = thread
        thread.start()
    }

    /// Stops accepting (the thread ends at its next accept).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !bytes.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) && bytes.count < 65536 {
            let n = read(connection, &buffer, buffer.count)
            guard n > 0 else { return }
            bytes += buffer[0..<n]
        }
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let words = lines[0].split(separator: " ")
        guard words.count == 3 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(path: String(words[1]), headers: headers)
        lock.lock()
        received.append(request)
        lock.unlock()
        let reply = respond(request)
        var head = "HTTP/1.1 \(reply.status) \(reply.status == 200 ? "OK" : "Answer")\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(reply.body.utf8.count)\r\nConnection: close\r\n"
        for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
        let out = Array((head + "\r\n" + reply.body).utf8)
        var sent = 0
        while sent < out.count {
            let n = out[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            sent += n
        }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }
}
