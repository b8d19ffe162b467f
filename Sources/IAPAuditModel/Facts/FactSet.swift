/// The facts of some records of one file, by stream and partition, with the file's summary so far.
package struct FactSet: Sendable {
    /// `buffers[stream * FactKey.partitions + part]`.
    private(set) var buffers: [[UInt8]]
    package var summary = FileFacts()

    package init() { buffers = Array(repeating: [], count: FactStream.allCases.count * FactKey.partitions) }

    @inline(__always) package static func index(_ stream: FactStream, _ part: Int) -> Int { stream.rawValue * FactKey.partitions + part }

    @inline(__always) package mutating func append(_ stream: FactStream, _ part: Int, _ writer: FactWriter) {
        buffers[Self.index(stream, part)].append(contentsOf: writer.bytes)
    }

    /// Appends `other`'s facts after this set's (the records that follow).
    package mutating func append(_ other: FactSet) {
        for i in other.buffers.indices where !other.buffers[i].isEmpty { buffers[i].append(contentsOf: other.buffers[i]) }
        summary.add(other.summary)
    }

    /// Hands out and clears every buffer of at least `minimum` bytes: (stream, part, bytes).
    package mutating func take(atLeast minimum: Int) -> [(stream: FactStream, part: Int, bytes: [UInt8])] {
        var taken: [(FactStream, Int, [UInt8])] = []
        for i in buffers.indices where !buffers[i].isEmpty && buffers[i].count >= minimum {
            taken.append((FactStream(rawValue: i / FactKey.partitions)!, i % FactKey.partitions, buffers[i]))
            buffers[i] = []
        }
        return taken
    }

    package var byteCount: Int { buffers.reduce(0) { $0 + $1.count } }
}
