/// What one Apple listing says about a payment (semantics.md rules 9, 22 and 24): one definition, read by
/// the reconciliation (from facts) and by the close (from the ledger's rows).
package struct PaymentEvidence {
    /// The record's status (verifyReceipt `status`; 0 for signed records).
    package var status: Int64
    /// The record's effective environment (rule 2).
    package var environment: EnvironmentCode
    /// The record's environment signals disagree (rule 24).
    package var environmentConflict: Bool
    /// The record is a signed one (JWS, notification V2, app receipt), whose item signature must verify.
    package var isSigned: Bool
    /// The listing's own signature (each nested JWS of a page or notification is checked on its own).
    package var itemSignature: SignatureCode
    /// The transaction's own environment (JWS `environment`), normalized; `.none` when not given.
    package var itemEnvironment: EnvironmentCode
    /// `in_app_ownership_type` FAMILY_SHARED: a family member's own transaction.
    package var familyShared: Bool
    /// The receipt's (else the transaction's) bundle id is not one of ours (only when both are known).
    package var foreignBundle: Bool

    package init(
        status: Int64, environment: EnvironmentCode, environmentConflict: Bool, isSigned: Bool, itemSignature: SignatureCode,
        itemEnvironment: EnvironmentCode, familyShared: Bool, foreignBundle: Bool
    ) {
        (self.status, self.environment, self.environmentConflict, self.isSigned) = (status, environment, environmentConflict, isSigned)
        (self.itemSignature, self.itemEnvironment, self.familyShared, self.foreignBundle) = (
            itemSignature, itemEnvironment, familyShared, foreignBundle
        )
    }

    /// Apple stands behind the listing (`TrustLevel.needed`): an unsigned Apple answer whose item signature did not
    /// fail, or a signed record whose item signature verified (an unchecked decoded payload proves nothing).
    package var isTrusted: Bool { TrustLevel(isSigned: isSigned, isReceipt: false, signature: itemSignature).counts }

    /// A production record that proves payment (rule 22): status 0 or 21006, trusted, signals agreeing,
    /// our bundle, not a family member's own transaction. `ignoringConflict`: as if the signals agreed.
    package func provesPayment(ignoringConflict: Bool = false) -> Bool {
        if (status != 0 && status != 21006) || environment.isSandbox || (environmentConflict && !ignoringConflict) { return false }
        if !isTrusted { return false }
        if itemEnvironment != .none && itemEnvironment != .production { return false }
        return !familyShared && !foreignBundle
    }

    /// semantics.md rule 24: Apple's signals on a record's environment disagree — `environment` Production with
    /// a `receipt_type` ending in Sandbox, a Notification V1 body's `environment` and its
    /// `unified_receipt.environment` one Production and the other not, or a subscription period at sandbox
    /// speed (expires − purchase at most an hour; no production subscription is shorter than a week) on a
    /// record labelled Production or not labelled at all. Such a record proves no production payment.
    /// - Parameters:
    ///   - environment: the record's `environment` field, normalized (`.none` when absent).
    ///   - receiptEnvironment: a V1 body's `unified_receipt.environment`, normalized (`.none` when absent).
    ///   - effective: the record's effective environment (rule 2).
    ///   - items: each listed transaction's own environment and purchase and expiry dates (UTC ms).
    package static func environmentConflict(
        environment: EnvironmentCode, receiptTypeIsSandbox: Bool, receiptEnvironment: EnvironmentCode, effective: EnvironmentCode,
        items: some Sequence<(environment: EnvironmentCode, purchaseMs: Int64?, expiresMs: Int64?)>
    ) -> Bool {
        if environment == .production && receiptTypeIsSandbox { return true }
        if environment != .none && receiptEnvironment != .none && environment.isSandbox != receiptEnvironment.isSandbox { return true }
        guard effective == .production || effective == .none else { return false }
        for item in items where item.environment == .production || item.environment == .none {
            if let purchased = item.purchaseMs, let expires = item.expiresMs, expires - purchased <= 3_600_000 { return true }
        }
        return false
    }

    /// A `receipt_type` ending in `Sandbox` (`ProductionSandbox`, `ProductionVPPSandbox`).
    package static func isSandboxReceiptType(_ b: UnsafeBufferPointer<UInt8>?) -> Bool {
        guard let b else { return false }
        return b.count >= 7 && b[(b.count - 7)...].elementsEqual("Sandbox".utf8)
    }
}
