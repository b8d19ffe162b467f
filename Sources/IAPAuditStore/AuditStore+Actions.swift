import IAPAuditModel

/// Table `finding_action`: what to do about each finding of the last run (`FindingAction`), and its join with the
/// lifecycle: an acknowledged or resolved finding's action is `none` and says who closed it, when and why.
extension AuditStore {
    static let actionColumns = [
        "finding_id", "code", "user_id", "product_id", "quantity", "amount_milliunits", "currency", "transaction_id", "because",
        "status", "open_code", "note", "acknowledged_by", "acknowledged_at", "request_ids",
    ]

    static let actionInsert =
        "INSERT OR REPLACE INTO finding_action (\(actionColumns.joined(separator: ", "))) VALUES ("
        + (1...actionColumns.count).map { "?\($0)" }.joined(separator: ", ") + ")"

    static func actionValues(_ id: String, _ a: FindingAction) -> [any SQLBindable] {
        [
            id, a.code.rawValue, a.userId, a.productId, a.quantity, a.amountMilliunits, a.currency, a.transactionId, a.because, a.status,
            a.openCode?.rawValue, a.note, a.by, a.atMs.map(Timestamp.iso), IdList.encode(a.requestIds),
        ]
    }

    /// The action of a `finding_action` row read with `actionColumns` from column `first` on (its id not included).
    static func action(_ q: SQLiteStatement, from first: Int32 = 0) -> FindingAction {
        var a = FindingAction(
            code: FindingActionCode(rawValue: q.text(first + 1)) ?? .noAction, userId: q.optionalText(first + 2),
            productId: q.optionalText(first + 3), quantity: q.optionalInt64(first + 4), transactionId: q.text(first + 7),
            because: q.text(first + 8))
        (a.amountMilliunits, a.currency, a.status) = (q.optionalInt64(first + 5), q.optionalText(first + 6), q.text(first + 9))
        a.openCode = q.optionalText(first + 10).flatMap(FindingActionCode.init(rawValue:))
        (a.note, a.by) = (q.optionalText(first + 11), q.optionalText(first + 12))
        a.atMs = q.optionalText(first + 13).flatMap(Timestamp.parseMs)
        a.requestIds = IdList.decode(q.text(first + 14))
        return a
    }

    /// The action of a `finding_action` row read with `actionColumns` (its id first), as `action(_:)` reads it; throws
    /// `LedgerDamage` naming the row when it holds what no run writes (a rebuilt table takes anything): an unknown
    /// `code`, `status` or `open_code`, a NULL where a run writes a value, a value of another type, an `acknowledged_at`
    /// that is no time. `trace` reads the ledger's actions through it.
    static func checkedAction(_ q: SQLiteStatement) throws -> FindingAction {
        let texts: [Int32] = [0, 1, 7, 8, 9, 14]
        let optionalTexts: [Int32] = [2, 3, 6, 10, 11, 12, 13]
        let optionalIntegers: [Int32] = [4, 5]
        let wrong =
            texts.first { !q.holdsText($0) } ?? optionalTexts.first { !q.holdsText($0) && !q.isNull($0) }
            ?? optionalIntegers.first { !q.holdsInteger($0) && !q.isNull($0) }
        func damaged(_ why: String) -> LedgerDamage { LedgerDamage(table: "finding_action", key: q.text(0), why: why) }
        if let wrong { throw damaged("holds a value of another type than a run writes in \(actionColumns[Int(wrong)])") }
        guard FindingActionCode(rawValue: q.text(1)) != nil, q.optionalText(10).map({ FindingActionCode(rawValue: $0) != nil }) ?? true
        else { throw damaged("holds an action code no run writes") }
        guard ["open", "acknowledged", "resolved"].contains(q.text(9)) else { throw damaged("holds a status no run writes") }
        guard q.optionalText(13).map({ Timestamp.parseMs($0) != nil }) ?? true else {
            throw damaged("holds an acknowledged_at that is no time")
        }
        guard IdList.encode(IdList.decode(q.text(14))) == q.text(14) else {
            throw damaged("holds request_ids that are no JSON list of ids")
        }
        return action(q)
    }

    /// Rewrites the actions of findings whose state is not open (acknowledged, resolved) as `FindingAction.joined(with:)`
    /// says; `id` limits it to one finding (`iap-audit ack`). Inside the caller's transaction.
    func joinActionsWithLifecycle(_ id: String? = nil) throws {
        let q = try database.prepare(
            """
            SELECT \(Self.actionColumns.map { "a." + $0 }.joined(separator: ", ")), \(LifecycleReader.stateColumnNames.map { "s." + $0 }.joined(separator: ", "))
            FROM finding_action a JOIN finding_state s USING (finding_id)
            WHERE s.status <> 'open'\(id == nil ? "" : " AND a.finding_id = ?1")
            """)
        if let id { q.bind([id]) }
        var joined: [(String, FindingAction)] = []
        while try q.step() {
            joined.append(
                (q.text(0), try Self.checkedAction(q).joined(with: LifecycleReader.state(q, from: Int32(Self.actionColumns.count)))))
        }
        let update = try database.prepare(Self.actionInsert)
        for (id, action) in joined { try update.run(Self.actionValues(id, action)) }
    }
}
