/// StoreKit transaction states a client reports (`SKPaymentTransactionState`).
public enum ClientState: String, Sendable, CaseIterable {
    case purchasing, purchased, failed, deferred, restored
}
