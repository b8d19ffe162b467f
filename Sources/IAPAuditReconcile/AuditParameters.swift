import IAPAuditModel

/// What every rule reads of the run, whatever the partition: the config, the instant the audit speaks for, the grace
/// before an unanswered request is overdue, and the window (rule 17).
struct AuditParameters {
    let config: AuditConfig
    /// ms since 1970 UTC: the instant the audit speaks for.
    let asOfMs: Int64
    /// ms.
    let graceMs: Int64
    let window: AuditWindow
    /// The newest record of each feed over the whole ledger, known before any rule runs (rule 26).
    var feedEnds = PendingEvidenceRule.FeedEnds(serverLogMs: nil, appleAnswersMs: nil, graceMs: 0)
    /// What people did about purchases (`iap-audit resolve`, rule 25).
    var manual: ManualActions = .none
}
