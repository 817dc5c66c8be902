"""The code has a licence, and the data reproduced under CC BY 4.0 carries what that licence asks for.

CC BY 4.0 section 3(a) asks for the creator's name, a link to the licence and an indication of changes made
(https://creativecommons.org/licenses/by/4.0/legalcode, 3(a)(1)); these tests read the shipped files for them.
"""
import csv
import importlib.metadata
import importlib.resources
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = importlib.resources.files("explorer") / "data"
CC_BY_LINK = "https://creativecommons.org/licenses/by/4.0/"


def _notice() -> str:
    return (DATA / "NOTICE.md").read_text(encoding="utf-8")


def test_the_code_is_under_bsd_3_clause():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License")
    # the three conditions of the SPDX BSD-3-Clause text
    assert "Redistributions of source code must retain" in text
    assert "Redistributions in binary form must reproduce" in text
    assert "Neither the name of the copyright holder" in text


def test_the_installed_package_declares_its_licence_and_ships_both_files():
    meta = importlib.metadata.metadata("llm-cost-explorer")
    assert meta.get("License-Expression") == "BSD-3-Clause"
    assert {"LICENSE", "explorer/data/NOTICE.md"} <= set(meta.get_all("License-File") or [])
    assert (DATA / "NOTICE.md").is_file()  # package data: a wheel carries the notice beside the CSVs


def test_every_table_with_cc_by_rows_is_named_in_the_notice_with_link_and_changes():
    notice = _notice()
    assert CC_BY_LINK in notice
    assert "changes made" in notice
    assert "Epoch AI" in notice and "2405.21015" in notice
    with_cc_by = set()
    for path in sorted(pathlib.Path(str(DATA)).glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as f:
            if any("CC BY" in (row.get("source") or "") for row in csv.DictReader(f)):
                with_cc_by.add(path.name)
    assert {"cloud_prices.csv", "epoch_frontier.csv"} <= with_cc_by
    missing = sorted(name for name in with_cc_by if f"`{name}`" not in notice)
    assert not missing, f"tables with CC BY rows that NOTICE.md does not name: {missing}"


def test_every_reproduced_epoch_price_row_attributes_its_source():
    path = pathlib.Path(str(DATA)) / "cloud_prices.csv"
    with path.open(encoding="utf-8", newline="") as f:
        epoch_rows = [r for r in csv.DictReader(f) if r["source"].startswith("Epoch AI hardware price database")]
    assert len(epoch_rows) >= 100
    for row in epoch_rows:
        assert "CC BY 4.0" in row["source"], row["id"]
        assert re.search(r"commit [0-9a-f]{7}", row["source"]), row["id"]


def test_the_readme_says_both_licences():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Licence", 1)[1]
    assert "BSD 3-Clause" in section and "`LICENSE`" in section
    assert "CC BY 4.0" in section and CC_BY_LINK in section and "NOTICE.md" in section
