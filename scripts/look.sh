#!/usr/bin/env bash
# Look at a workbook as a person would: LibreOffice prints it to PDF and pdftoppm makes one PNG a page;
# then LibreOffice recalculates every formula and each result is compared with the value written beside it
# (Excel and LibreOffice must show the same numbers before and after recalculation).
#   scripts/look.sh reports/close-2026-10.xlsx [OUTDIR] [DPI]
# Needs soffice (with its Python, python3-uno), pdftoppm, and .venv (scripts/setup.sh --with-test-tools).
set -euo pipefail
book=$(realpath "$1")
out=$(realpath -m "${2:-${book%.xlsx}-look}")
dpi="${3:-80}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
rm -f "$out"/*.png "$out"/*.pdf
soffice --headless --convert-to pdf --outdir "$out" "$book" >/dev/null 2>&1
pdftoppm -png -r "$dpi" "$out"/*.pdf "$out/page"
echo "look.sh: $(ls "$out"/page*.png | wc -l) page(s) in $out"

recalculated="$out/recalculated.xlsx"
/usr/bin/python3 - "$book" "$recalculated" "$out/profile" <<'PY'
import os, subprocess, sys, time, uno
from com.sun.star.beans import PropertyValue
source, target, profile = sys.argv[1], sys.argv[2], sys.argv[3]
office = subprocess.Popen(["soffice", "--headless", "--invisible", "--norestore", "--accept=socket,host=localhost,port=2002;urp;",
                           "-env:UserInstallation=" + uno.systemPathToFileUrl(profile)], stderr=subprocess.DEVNULL)
resolver = uno.getComponentContext().ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", uno.getComponentContext())
for _ in range(120):
    try:
        context = resolver.resolve("uno:socket,host=localhost,port=2002;urp;StarOffice.ComponentContext")
        break
    except Exception:
        time.sleep(0.5)
desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
def prop(name, value):
    p = PropertyValue(); p.Name, p.Value = name, value; return p
document = desktop.loadComponentFromURL(uno.systemPathToFileUrl(source), "_blank", 0, (prop("Hidden", True),))
document.calculateAll()
document.storeToURL(uno.systemPathToFileUrl(target), (prop("FilterName", "Calc MS Excel 2007 XML"),))
document.close(True)
try:
    desktop.terminate()
except Exception:
    pass
office.wait(timeout=60)
PY
"$root/.venv/bin/python" - "$book" "$recalculated" <<'PY'
import sys, openpyxl
written = openpyxl.load_workbook(sys.argv[1])
cached = openpyxl.load_workbook(sys.argv[1], data_only=True)
recalculated = openpyxl.load_workbook(sys.argv[2], data_only=True)
formulas, differ = 0, 0
for sheet in written.worksheets:
    for row in sheet.iter_rows():
        for cell in row:
            if isinstance(cell.value, str) and cell.value.startswith("="):
                formulas += 1
                a, b = cached[sheet.title][cell.coordinate].value, recalculated[sheet.title][cell.coordinate].value
                if a != b:
                    differ += 1
                    print(f"look.sh: {sheet.title}!{cell.coordinate} {cell.value}: written {a}, LibreOffice {b}")
print(f"look.sh: {formulas} formula(s), {differ} whose LibreOffice result differs from the value written")
sys.exit(1 if differ else 0)
PY
