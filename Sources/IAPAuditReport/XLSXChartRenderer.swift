import CXLSXWriter
import IAPAuditModel

// MARK: - Charts of a sheet

extension SheetRenderer {
    /// Adds a column chart at (`row`, `column`); returns false when it was skipped (its table has no data rows).
    func addChart(_ chart: ReportChart, placements: [Placement], row: Int, column: Int) throws -> Bool {
        guard placements.indices.contains(chart.tableIndex) else {
            throw invalid("chart '\(chart.title)' refers to table \(chart.tableIndex), but the sheet has \(placements.count) tables")
        }
        let placement = placements[chart.tableIndex]
        for (role, index) in [("category", chart.categoryColumn)] + chart.series.map({ ("value", $0.column) }) {
            guard index >= 0, index < placement.width else {
                throw invalid(
                    "chart '\(chart.title)': \(role) column \(index) is outside table \(chart.tableIndex) (\(placement.width) columns)")
            }
        }
        if placement.rowCount == 0 || chart.series.isEmpty { return false }

        guard let lxwChart = workbook_add_chart(book, UInt8(LXW_CHART_COLUMN.rawValue)) else {
            throw XLSXError(
                operation: "workbook_add_chart", message: "could not create the chart (out of memory?)",
                path: path, sheet: sheet.name)
        }
        // With the raw sheet name, libxlsxwriter builds the range formula itself and quotes
        // the name as needed (e.g. ='My ''Data'''!$A$2:$A$9).
        let sheetName = try strings.make(sheet.name, path: path)
        let firstRow = lxw_row_t(placement.firstDataRow)
        let lastRow = lxw_row_t(placement.firstDataRow + placement.rowCount - 1)
        for (name, valueColumn) in chart.series {
            guard let series = chart_add_series(lxwChart, nil, nil) else {
                throw XLSXError(
                    operation: "chart_add_series", message: "could not add the chart series (out of memory?)",
                    path: path, sheet: sheet.name)
            }
            chart_series_set_categories(
                series, sheetName, firstRow, lxw_col_t(chart.categoryColumn), lastRow, lxw_col_t(chart.categoryColumn))
            chart_series_set_values(series, sheetName, firstRow, lxw_col_t(valueColumn), lastRow, lxw_col_t(valueColumn))
            if !name.isEmpty { chart_series_set_name(series, try strings.make(XLSXWriter.literalChartText(name), path: path)) }
        }
        if chart.allowsNegative {
            // One category's bars on top of each other (revenue up, refunds down), the dates below the plot.
            chart_set_series_overlap(lxwChart, 100)
            chart_axis_set_label_position(lxwChart.pointee.x_axis, UInt8(LXW_CHART_AXIS_LABEL_POSITION_LOW.rawValue))
        } else {
            // Counts from zero (an axis starting at the lowest day makes small differences look large).
            chart_axis_set_min(lxwChart.pointee.y_axis, 0)
        }
        // One series needs no legend.
        chart_legend_set_position(
            lxwChart, UInt8((chart.series.count > 1 ? LXW_CHART_LEGEND_BOTTOM : LXW_CHART_LEGEND_NONE).rawValue))
        if let format = chart.categoryFormat {
            chart_axis_set_num_format(lxwChart.pointee.x_axis, try strings.make(format, path: path))
        }
        if let currency = chart.valueCurrency {
            let format = XLSXMoney.numberFormat(decimals: CurrencyDigits.minorUnits(currency))
            chart_axis_set_num_format(lxwChart.pointee.y_axis, try strings.make(format, path: path))
        }
        if !chart.title.isEmpty {
            chart_title_set_name(lxwChart, try strings.make(XLSXWriter.literalChartText(chart.title), path: path))
        }
        try check(
            worksheet_insert_chart(worksheet, lxw_row_t(row), lxw_col_t(column), lxwChart),
            "worksheet_insert_chart", row: row, column: column)
        return true
    }
}
