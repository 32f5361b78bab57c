"""Build the out-of-distribution corpora of the filtering benchmark from Debian packages.

``scripts/data_parallel.py`` builds the corpora the learned score was developed on (package
descriptions, LibreOffice, GCC). These are other sources and other languages, so that the benchmark
can measure the score where it was never tuned:

* ``programs-en-<lang>.tsv``: the translated message catalogues (gettext .mo, read with polib) of
  command-line tools (``CLI``: coreutils, tar, grep, util-linux, the C library, dpkg, apt, GnuPG,
  Midnight Commander, ...; source ``cli/<package>``) and desktop applications (``DESKTOP``: GTK,
  GLib, gedit, Evince, Nautilus, Pidgin, Gnumeric, ...; source ``desktop/<package>``), msgid ->
  msgstr, for every language of ``PROGRAM_LANGUAGES``; never LibreOffice or GCC;
* ``descriptions-en-<lang>.tsv``: package-description translations (DDTP, apt's Translation-*
  indexes, paired paragraph by paragraph as ``data_parallel.py`` does; source
  ``debian-description``) of the languages ``DESCRIPTION_LANGUAGES``, none of them en-ja/de/fr's.

Rows are ``en <TAB> translation <TAB> source``, unique pairs, in catalogue order (packages sorted,
entries in .mo order, so neighbouring rows are alphabetically adjacent messages of one program).
Keyboard mnemonics are removed where the English has exactly one (``_Open`` / ``_Ouvrir``,
``&File``, ``ファイル(_F)``), as LibreOffice's ``~`` is in ``data_parallel.py``.

    python -m scripts.experiments.filtering.data_parallel_ood --out data/parallel --cache data/cache
"""

from __future__ import annotations

import argparse
import os
import re

from scripts.experiments.filtering.data_parallel import catalogue_pairs, description_pairs, unique_rows
from scripts.experiments.langid.data_langid import apt_lists

CLI = ("coreutils", "tar", "grep", "sed", "findutils", "diffutils", "util-linux-locales", "libc-l10n", "dpkg", "apt",
       "debconf-i18n", "gettext", "wget", "e2fsprogs-l10n", "gnupg-l10n", "nano", "psmisc", "procps", "sudo", "gawk",
       "make", "cpio", "bash", "mc-data", "aptitude-common")
DESKTOP = ("libgtk-3-common", "libglib2.0-data", "gedit-common", "evince-common", "nautilus-data", "xfce4-panel",
           "pidgin-data", "gnumeric-common", "synaptic", "meld")
# locale directory -> file suffix: the benchmark's target languages and the wrong-language material for them
PROGRAM_LANGUAGES = {"ru": "ru", "uk": "uk", "ko": "ko", "pl": "pl", "cs": "cs", "de": "de", "fr": "fr", "ja": "ja",
                     "zh_CN": "zh", "nl": "nl", "it": "it", "es": "es", "pt_BR": "pt", "sv": "sv", "da": "da",
                     "el": "el", "hu": "hu", "sk": "sk"}
DESCRIPTION_LANGUAGES = {"ru": "ru", "uk": "uk", "ko": "ko", "pl": "pl", "cs": "cs"}
MNEMONIC = re.compile(r"(?<![%_&])[_&](?=\w)")
CJK_MNEMONIC = re.compile(r"\s*\([_&]\w\)")


def strip_mnemonic(en: str, xx: str) -> tuple[str, str]:
    """Remove the keyboard mnemonic of a UI string from both sides when the English has exactly one:
    a ``_`` or ``&`` before a letter (``Open _Recent``, ``E_dit``, ``&File``; not ``%_H``, nor an
    identifier the translation keeps as it is: ``LC_ALL``, ``AT&T``); on the translation a
    parenthesised one (``最近(_R)``) or else its first."""
    if len(MNEMONIC.findall(en)) != 1 or any(MNEMONIC.search(word) for word in set(en.split()) & set(xx.split())):
        return en, xx
    en = MNEMONIC.sub("", en, count=1)
    xx, parenthesised = CJK_MNEMONIC.subn("", xx, count=1)
    return en, xx if parenthesised else MNEMONIC.sub("", xx, count=1)


def program_pairs(cache: str, locale: str) -> list[tuple[str, str, str]]:
    """(en, translation, source) of every catalogue of CLI and DESKTOP for one locale directory."""
    pairs = []
    for group, packages in (("cli", CLI), ("desktop", DESKTOP)):
        for package in packages:
            found = catalogue_pairs(cache, f"{group}/{package}", package, f"usr/share/locale/{locale}/LC_MESSAGES/*.mo")
            pairs += [(*strip_mnemonic(en, xx), source) for en, xx, source in found]
    return pairs


def write_pairs(pairs: list[tuple[str, str, str]], path: str) -> None:
    """The distinct (en, translation) pairs (``data_parallel.unique_rows``) to ``path``, atomically."""
    rows = unique_rows(pairs)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.writelines(rows)
    os.replace(path + ".tmp", path)
    groups = sorted({source.split("/")[0] for _, _, source in pairs})
    counts = {g: sum(row.split("\t")[2].split("/")[0].strip() == g for row in rows) for g in groups}
    print(f"{len(rows)} unique pairs -> {path} {counts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="data/parallel")
    parser.add_argument("--cache", default="data/cache")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for locale, suffix in PROGRAM_LANGUAGES.items():
        write_pairs(program_pairs(args.cache, locale), os.path.join(args.out, f"programs-en-{suffix}.tsv"))
    lists = apt_lists(args.cache)
    for code, suffix in DESCRIPTION_LANGUAGES.items():
        write_pairs(description_pairs(lists, code), os.path.join(args.out, f"descriptions-en-{suffix}.tsv"))


if __name__ == "__main__":
    main()
