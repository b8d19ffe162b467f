import Foundation
import IAPAuditModel

/// One id to ask Apple about: a transaction id (Get Transaction Info) or an order id (Look Up Order ID), and the
/// open findings that name it (none when given on the command line only).
public struct AskAppleItem: Sendable, Equatable {
    public var endpoint: AppleEndpoint
    public var id: String
    public var findingIds: [String]

    public init(endpoint: AppleEndpoint, id: String, findingIds: [String] = []) {
        (self.endpoint, self.id, self.findingIds) = (endpoint, id, findingIds)
    }

    /// The items of `transactionIds` (the ledger's first, with their findings) then `orderIds`, each id once, in order.
    public static func deduplicated(ledger: [(findingId: String, transactionId: String)], transactionIds: [String], orderIds: [String])
        -> [AskAppleItem]
    {
        var items: [AskAppleItem] = []
        var index: [String: Int] = [:]
        func add(_ endpoint: AppleEndpoint, _ id: String, _ finding: String?) {
            let key = endpoint.rawValue + " " + id
            if index[key] == nil {
                index[key] = items.count
                items.append(AskAppleItem(endpoint: endpoint, id: id))
            }
            if let finding { items[index[key]!].findingIds.append(finding) }
        }
        for (finding, id) in ledger { add(.getTransactionInfo, id, finding) }
        for id in transactionIds { add(.getTransactionInfo, id, nil) }
        for id in orderIds { add(.lookUpOrderId, id, nil) }
        return items
    }
}

/// What Apple's answers say about one id.
public enum AskAppleOutcome: String, Sendable, CaseIterable {
    /// Get Transaction Info answered 200 in production, or Look Up Order ID listed the order (`status` 0).
    case found = "found"
    /// Not found in production (4040010), found in the sandbox: a test purchase.
    case foundInSandbox = "found in sandbox"
    /// 4040010 in both environments.
    case notFound = "not found"
    /// 4000006 (InvalidTransactionIdError), or Look Up Order ID's `status` 1.
    case invalidId = "invalid id"
    /// Another answer of Apple's (another error code, an unexpected `status`): its words are in the evidence file.
    case otherAnswer = "other answer"
    /// No answer (HTTP 5xx or 429 after the retries, no connection, a refused token): nothing saved for it.
    case failed = "failed"
}

/// One id asked: the environments asked, the outcome, Apple's answers (saved), and why it failed.
public struct AskAppleResult: Sendable {
    public let item: AskAppleItem
    public var environments: [AppleEnvironment] = []
    public var outcome: AskAppleOutcome = .failed
    public var answers: [AppleAnswer] = []
    /// Why the last request had no answer (`failed`; or the sandbox's failure after a production 4040010).
    public var failure: String?
    /// Words for people: the error code and message of an other answer, how many transactions an order lists.
    public var detail: String?
}

/// Asks Apple about each item: Get Transaction Info in production, then in the sandbox when production answers
/// 4040010 (TransactionIdNotFoundError, as Apple advises); Look Up Order ID in production (it has no sandbox).
public enum AskApple {
    /// Apple's error codes `ask-apple` reads.
    static let transactionIdNotFound = 4_040_010, invalidTransactionId = 4_000_006

    /// - Parameter progress: told each result as it is known.
    public static func ask(_ items: [AskAppleItem], client: AppleAPIClient, progress: (AskAppleResult) -> Void = { _ in })
        -> [AskAppleResult]
    {
        items.map { item in
            var result = AskAppleResult(item: item)
            ask(item, client: client, into: &result, environment: .production)
            progress(result)
            return result
        }
    }

    private static func ask(_ item: AskAppleItem, client: AppleAPIClient, into result: inout AskAppleResult, environment: AppleEnvironment)
    {
        result.environments.append(environment)
        switch client.ask(item.endpoint, item.id, in: environment) {
        case .failure(let failure):
            (result.outcome, result.failure) = (.failed, failure.description)
        case .success(let answer):
            result.answers.append(answer)
            if answer.errorCode == transactionIdNotFound, item.endpoint == .getTransactionInfo, environment == .production {
                return ask(item, client: client, into: &result, environment: .sandbox)
            }
            (result.outcome, result.detail) = judged(answer)
        }
    }

    /// The outcome one answer says, and words for an other answer or an order's transactions.
    static func judged(_ answer: AppleAnswer) -> (AskAppleOutcome, String?) {
        if let code = answer.errorCode {
            if code == transactionIdNotFound { return (.notFound, nil) }
            if code == invalidTransactionId { return (.invalidId, nil) }
            return (.otherAnswer, "HTTP \(answer.httpStatus), errorCode \(code)")
        }
        guard answer.httpStatus == 200 else { return (.otherAnswer, "HTTP \(answer.httpStatus)") }
        switch answer.endpoint {
        case .getTransactionInfo:
            return (answer.environment == .production ? .found : .foundInSandbox, nil)
        case .lookUpOrderId:
            switch answer.orderStatus {
            case 0: return (.found, "\(answer.signedTransactionCount) transaction\(answer.signedTransactionCount == 1 ? "" : "s")")
            case 1: return (.invalidId, nil)
            default: return (.otherAnswer, "status \(answer.orderStatus.map(String.init) ?? "missing")")
            }
        }
    }
}
