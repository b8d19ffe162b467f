import Foundation
import IAPAuditCrypto
import IAPAuditModel

/// Where and how fast `ask-apple` asks Apple.
public struct AppleAPISettings: Sendable {
    public static let productionURL = URL(string: "https://api.storekit.itunes.apple.com")!
    public static let sandboxURL = URL(string: "https://api.storekit-sandbox.itunes.apple.com")!

    public var productionBaseURL = productionURL
    public var sandboxBaseURL = sandboxURL
    /// At most this many requests a second (retries included): each starts 1/rate s after the one before.
    public var requestsPerSecond: Double = 10
    /// Retries of a request answered 429 or 5xx, or not answered: then it fails.
    public var retries = 3
    /// The wait before the first retry, ms; doubled at each (1 s, 2 s, 4 s). A 429's `Retry-After` (seconds) wins.
    public var backoffMs: Int64 = 1000
    /// The longest wait a `Retry-After` gets, ms.
    public var longestWaitMs: Int64 = 60_000

    public init() {}

    func baseURL(_ environment: AppleEnvironment) -> URL { environment == .production ? productionBaseURL : sandboxBaseURL }
}

/// The token `ask-apple` sends (`Authorization: Bearer …`): signed by the App Store Connect key, 20 minutes long,
/// made again once 10 minutes old. Kept in memory only.
public final class AppleAPIToken: @unchecked Sendable {
    private let key: AppStoreConnectKey
    private let keyId: String, issuerId: String, bundleId: String
    private var current: (token: String, issuedAt: Int64)?
    private let lock = NSLock()

    public init(key: AppStoreConnectKey, keyId: String, issuerId: String, bundleId: String) {
        (self.key, self.keyId, self.issuerId, self.bundleId) = (key, keyId, issuerId, bundleId)
    }

    /// The token to send at `nowMs` (ms since 1970 UTC).
    func token(nowMs: Int64) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let now = nowMs / 1000
        if let current, now - current.issuedAt < 600 { return current.token }
        let token = try key.token(keyId: keyId, issuerId: issuerId, bundleId: bundleId, issuedAt: now, lifetime: 1200)
        current = (token, now)
        return token
    }
}

/// Asks the App Store Server API, one request at a time, paced (`AppleAPISettings.requestsPerSecond`) and retried
/// (429, 5xx, no answer). Nothing it says names the token.
public final class AppleAPIClient {
    private let settings: AppleAPISettings
    private let transport: any HTTPTransport
    private let token: AppleAPIToken
    private let clockMs: () -> Int64
    private let sleepMs: (Int64) -> Void
    private var lastStartMs: Int64?

    public init(
        settings: AppleAPISettings, token: AppleAPIToken, transport: any HTTPTransport = URLSessionTransport(),
        clockMs: @escaping () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) },
        sleepMs: @escaping (Int64) -> Void = { if $0 > 0 { usleep(UInt32(min($0, 3_600_000) * 1000)) } }
    ) {
        (self.settings, self.token, self.transport, self.clockMs, self.sleepMs) = (settings, token, transport, clockMs, sleepMs)
    }

    /// Apple's answer to `endpoint` about `id` in `environment`, or why there is none.
    public func ask(_ endpoint: AppleEndpoint, _ id: String, in environment: AppleEnvironment) -> Result<AppleAnswer, AppleAPIFailure> {
        let base = settings.baseURL(environment).absoluteString
        guard let url = URL(string: (base.hasSuffix("/") ? String(base.dropLast()) : base) + endpoint.path(id)) else {
            return .failure(AppleAPIFailure(description: "no URL for this id"))
        }
        var last = ""
        for attempt in 0...settings.retries {
            pace()
            let response: HTTPResponse
            do {
                let bearer = try token.token(nowMs: clockMs())
                response = try transport.get(url, headers: ["Authorization": "Bearer " + bearer, "Accept": "application/json"])
            } catch let error as HTTPTransportError {
                last = error.description
                if attempt < settings.retries { sleepMs(backoff(attempt)) }
                continue
            } catch {
                return .failure(AppleAPIFailure(description: "cannot sign the token: \(error)"))
            }
            if response.status == 429 || (500...599).contains(response.status) {
                last = "HTTP \(response.status)"
                let after = response.headers["retry-after"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
                if attempt < settings.retries { sleepMs(after.map { min($0 * 1000, settings.longestWaitMs) } ?? backoff(attempt)) }
                continue
            }
            let answer = AppleAnswer(
                endpoint: endpoint, id: id, environment: environment, receivedAtMs: clockMs(), httpStatus: response.status,
                data: response.body)
            guard let answer else { return .failure(AppleAPIFailure(description: Self.noAnswer(response.status))) }
            return .success(answer)
        }
        return .failure(AppleAPIFailure(description: "\(last) after \(settings.retries) retries"))
    }

    /// Why a reply is no answer of Apple's.
    static func noAnswer(_ status: Int) -> String {
        switch status {
        case 401: return "HTTP 401: Apple refused the token (check --key-id, --issuer-id, --bundle-id and the key)"
        case 403: return "HTTP 403: the key may not use the App Store Server API (give it that access in App Store Connect)"
        default: return "HTTP \(status) with no answer of Apple's (no JSON object)"
        }
    }

    /// The wait before retry `attempt + 1`, ms.
    private func backoff(_ attempt: Int) -> Int64 { settings.backoffMs << Int64(min(attempt, 20)) }

    /// Waits until 1/rate s has passed since the last request began.
    private func pace() {
        let interval = Int64(1000 / max(settings.requestsPerSecond, 0.001))
        if let lastStartMs {
            let wait = lastStartMs + interval - clockMs()
            if wait > 0 { sleepMs(wait) }
        }
        lastStartMs = clockMs()
    }
}
