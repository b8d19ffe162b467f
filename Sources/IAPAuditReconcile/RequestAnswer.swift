import IAPAuditModel

/// One verification request with Apple's answers to it (semantics.md rules 2–7): what it carried,
/// what it granted and with what proof, and how Apple answered.
struct RequestAnswer {
    let request: MergedRequest
    /// Apple's answers the rules read, by `received_at`: an answer whose signature failed is none (docs/security.md,
    /// "Trust levels": a forged answer received later must not become the final response).
    let answers: [LinkedResponse]
    /// Some answer's signature failed: a grant with no other answer is `signature_invalid` (rule 13).
    let failedAnswer: Bool
    /// The answers a carrier names as evidence: those the rules read, else (only failed ones) the failed ones, which
    /// a `signature_invalid` credit names.
    let evidenceAnswers: [LinkedResponse]
    /// The final response (rule 2): the latest `received_at`, ties the later record.
    let final: LinkedResponse?
    /// The final response's items the rules read: an item whose own signature failed (a forged JWS in an unsigned Server
    /// API page) is absent, for every rule, as if the answer did not list it (an answer listing nothing else is still an
    /// answer: its request is answered, its grants `not_in_receipt`).
    let finalItems: ArraySlice<LinkedResponseFact.Item>
    /// Ids the request carried, after resolving posted original ids (rule 6).
    let carried: [FactId]
    /// What it granted (rule 5): resolved `credited_transaction_ids`, else the carried ids.
    let grantSet: [FactId]
    /// Apple's final status, else the logged one (rule 3: classification only, never proof).
    let status: Int64?
    /// Apple's word on the environment, else the server log's.
    let environment: String?
    let bytes: PartitionBytes

    init(request: MergedRequest, answers: [LinkedResponse], _ c: RequestGroup.Context) {
        self.request = request
        let all = answers
        let answers = all.filter { !$0.fact.signatureFailed }
        self.answers = answers
        failedAnswer = answers.count < all.count
        evidenceAnswers = answers.isEmpty ? all : answers
        bytes = c.bytes
        final = answers.last
        finalItems = final.map { ArraySlice(c.items[$0.fact.items].filter { !$0.signatureFailed }) } ?? []
        let items = finalItems
        let bytes = c.bytes
        func resolve(_ posted: [FactId]) -> [FactId] {
            var result: [FactId] = []
            for x in posted {
                let id = Self.resolve(x, items, bytes)
                if !result.contains(where: { bytes.same($0, id) }) { result.append(id) }
            }
            return result
        }
        carried = resolve(request.posted)
        grantSet = request.granted ? resolve(request.credited ?? request.posted) : []
        status = final?.fact.status ?? request.verifyStatus
        environment =
            final.flatMap { $0.fact.environmentName(bytes) } ?? request.environment.map { Environment.normalized(bytes.string($0)!) }
    }

    /// Rule 6: X itself when it is a `transaction_id` of the final response; else the newest item
    /// whose `original_transaction_id` is X; else X.
    static func resolve(_ posted: FactId, _ items: ArraySlice<LinkedResponseFact.Item>, _ bytes: PartitionBytes) -> FactId {
        if items.contains(where: { bytes.same($0.id, posted) }) { return posted }
        var best: LinkedResponseFact.Item? = nil
        for item in items where bytes.same(item.originalId, posted) {
            if best == nil || (item.purchaseDateMs ?? Int64.min) >= (best!.purchaseDateMs ?? Int64.min) { best = item }
        }
        return best?.id ?? posted
    }

    var isAnswered: Bool { status != nil }

    /// The final answer's environment signals disagree (rule 24): it proves no production payment.
    var isEnvironmentConflict: Bool { final?.fact.environmentConflict ?? false }

    /// Apple answered from the sandbox, or with signals that disagree (rule 24).
    var isSandboxAnswer: Bool { isAnswered && (isEnvironmentConflict || (environment.map { $0 != "Production" } ?? false)) }

    /// A production final response that shows `id` paid, or (status 0) shows the receipt Apple holds:
    /// status 0, or 21006 listing `id` (rule 7); never one whose environment signals disagree.
    func isProductionSuccess(_ id: FactId) -> Bool {
        guard let final, !final.fact.environment.isSandbox, !isEnvironmentConflict else { return false }
        return isProof(status: final.fact.status, for: id)
    }

    /// Rule 7: status 0, or 21006 (valid receipt, subscription expired) whose receipt lists `id`.
    func isProof(status: Int64?, for id: FactId) -> Bool { status == 0 || (status == 21006 && finalContains(id)) }

    /// Units the request credited of `id` (`credited_quantity`, as logged for `id` or the id it was posted as).
    func creditedQuantity(_ id: FactId) -> Int64? {
        for (posted, quantity) in request.creditedQuantities
        where bytes.same(posted, id) || bytes.same(Self.resolve(posted, finalItems, bytes), id) {
            return quantity
        }
        return nil
    }

    /// Rule 14: 1 `no_verify_response`, 2 `retryable_status`, 0 resolved.
    var unresolvedReason: UInt8 {
        guard let status else { return 1 }
        return VerifyStatus.isRetryable(Int(status), isRetryable: final?.fact.isRetryable) ? 2 : 0
    }

    func finalContains(_ id: FactId) -> Bool { finalItems.contains { bytes.same($0.id, id) } }

    /// Rules 7 and 13: why the grant of `id` has no proof; `.proven` when it has.
    /// A final answer listing T under a failed signature (T's own JWS or receipt) is no proof, nor is a request
    /// whose only answers failed; the bundle check reads the receipt's bundle id, else T's JWS `bundleId`.
    func unproven(_ id: FactId, bundleIds: Set<String>) -> Grant {
        guard let final else { return failedAnswer ? .signatureInvalid : .noVerifyResponse }
        let item = finalItems.first { bytes.same($0.id, id) }
        if item.map(\.signatureFailed) ?? final.fact.signatureFailed { return .signatureInvalid }
        if !bundleIds.isEmpty, let bundle = final.fact.bundleId ?? item?.bundleId, !bundleIds.contains(bytes.string(bundle)!) {
            return .bundleMismatch
        }
        if !isProof(status: final.fact.status, for: id) { return .nonzeroStatus }
        if !finalContains(id) { return .notInReceipt }
        return .proven
    }

    /// One carrier fact per transaction carried or granted, for the partition of that transaction.
    func emitCarriers(_ c: RequestGroup.Context, _ out: inout RequestStage.Output) throws {
        let first = request.first.fact
        let latestMs = max(request.tsMs, final?.fact.receivedAtMs ?? request.tsMs)
        let firstSeenMs = min(request.tsMs, answers.compactMap(\.fact.receivedAtMs).min() ?? request.tsMs)
        let unresolved = unresolvedReason
        var targets = carried
        for id in grantSet where !targets.contains(where: { bytes.same($0, id) }) { targets.append(id) }
        var environment = self.environment
        for id in targets {
            let granted = grantSet.contains(where: { bytes.same($0, id) })
            let unprovenCode = granted ? unproven(id, bundleIds: c.bundleIds) : .proven
            try out.write(to: bytes.partition(id)) { w in
                withOptionalUTF8(&environment) { environment in
                    CarrierFact.write(
                        &w, id: bytes.input(id), fileId: first.fileId, line: first.line, requestId: bytes.bytes(first.requestId),
                        userId: request.userId.map { bytes.bytes($0) }, tsMs: request.tsMs, latestMs: latestMs, firstSeenMs: firstSeenMs,
                        status: status, environment: environment, isAnswered: isAnswered, isSandboxAnswer: isSandboxAnswer,
                        isProductionSuccess: isProductionSuccess(id), finalContains: finalContains(id), restore: request.restore,
                        isCarried: carried.contains(where: { bytes.same($0, id) }), isGrant: granted,
                        environmentConflict: isEnvironmentConflict, unresolved: unresolved, unproven: unprovenCode.rawValue,
                        creditedQuantity: granted ? creditedQuantity(id) : nil,
                        finalReceiptCreatedMs: final?.fact.receiptCreationDateMs, evidenceCount: request.lines.count + evidenceAnswers.count
                    ) { w in
                        for line in request.lines { CarrierFact.Evidence.write(&w, fileId: line.fact.fileId, line: line.fact.line) }
                        for answer in evidenceAnswers {
                            CarrierFact.Evidence.write(&w, fileId: answer.fact.fileId, line: answer.fact.line)
                        }
                    }
                }
            }
        }
    }
}

/// Why a grant has no proof: the `invalid_credit` reasons (semantics.md rule 13), strongest first
/// (precedence is raw-value order; a carrier fact stores the raw value).
enum Grant: UInt8, CaseIterable {
    case proven = 0, signatureInvalid, bundleMismatch, nonzeroStatus, notInReceipt, noVerifyResponse

    /// The `invalid_credit` reason of a grant without this proof; nil for a proven one.
    var cause: FindingReason? {
        switch self {
        case .proven: return nil
        case .signatureInvalid: return .invalidCreditSignatureInvalid
        case .bundleMismatch: return .invalidCreditBundleMismatch
        case .nonzeroStatus: return .invalidCreditNonzeroStatus
        case .notInReceipt: return .invalidCreditNotInReceipt
        case .noVerifyResponse: return .invalidCreditNoVerifyResponse
        }
    }

    /// The finding's reason.
    var reason: String {
        switch self {
        case .proven: return ""
        case .signatureInvalid: return "signature_invalid"
        case .bundleMismatch: return "bundle_mismatch"
        case .nonzeroStatus: return "nonzero_status"
        case .notInReceipt: return "not_in_receipt"
        case .noVerifyResponse: return "no_verify_response"
        }
    }
}
