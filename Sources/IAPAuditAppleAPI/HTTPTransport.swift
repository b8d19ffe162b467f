import Foundation
import IAPAuditModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP answer: its status, its headers (names lowercased) and its body's bytes.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data) {
        (self.status, self.headers, self.body) = (status, headers, body)
    }
}

/// Sends one GET and waits for its answer. Throws `HTTPTransportError` when no answer came (no connection, a timeout).
public protocol HTTPTransport: Sendable {
    func get(_ url: URL, headers: [String: String]) throws -> HTTPResponse
}

/// No HTTP answer: why, in words that name no header (the token is never in them).
public struct HTTPTransportError: Error, CustomStringConvertible {
    public let description: String
}

/// `HTTPTransport` over Foundation's `URLSession` (FoundationNetworking on Linux: libcurl), one request at a time,
/// `timeoutSeconds` each; no cookies, no cache, no redirect followed.
public struct URLSessionTransport: HTTPTransport {
    public let timeoutSeconds: Double

    public init(timeoutSeconds: Double = 30) { self.timeoutSeconds = timeoutSeconds }

    public func get(_ url: URL, headers: [String: String]) throws -> HTTPResponse {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
        request.httpMethod = "GET"
        request.httpShouldHandleCookies = false
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.urlCache = nil
        // No redirect is followed: the token goes to the base URL's host only; a 3xx is no answer.
        let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            box.set(data: data, response: response as? HTTPURLResponse, error: error)
            done.signal()
        }.resume()
        done.wait()
        let (data, response, error) = box.get()
        guard let response else {
            // URLError's text names the URL and the failure, never the request's headers.
            let why = (error as? URLError).map { "\($0.code) (\($0.localizedDescription))" } ?? error.map { "\($0)" } ?? "no answer"
            throw HTTPTransportError(description: "no answer from \(url.host ?? "?"): \(why)")
        }
        var lowered: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { lowered[name.lowercased()] = value }
        }
        return HTTPResponse(status: response.statusCode, headers: lowered, body: data ?? Data())
    }

    /// Refuses every redirect: the 3xx itself is the response.
    private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// The completion handler's results, handed from URLSession's queue to the waiting thread.
    private final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        private var response: HTTPURLResponse?
        private var error: (any Error)?

        func set(data: Data?, response: HTTPURLResponse?, error: (any Error)?) {
            lock.lock()
            defer { lock.unlock() }
            (self.data, self.response, self.error) = (data, response, error)
        }

        func get() -> (Data?, HTTPURLResponse?, (any Error)?) {
            lock.lock()
            defer { lock.unlock() }
            return (data, response, error)
        }
    }
}
