"""The regular expressions of placeholders and URLs that features.py compares between the sides and
rules.py leaves out of the script rule's letter counts (no compiled code: ``--help`` loads this)."""

from __future__ import annotations

import re

# An address's characters are ASCII and its last is no punctuation: (see http://a.org/x), http://a.org/ で定義.
_ADDRESS, _ADDRESS_END = r"[-A-Za-z0-9_.~:/?#\[\]@!$&'()*+,;=%]", r"[-A-Za-z0-9_~/#=&%+]"
PATTERNS = {
    # %% (an escaped %), %NAME (LibreOffice; a run of capitals, not a conversion before a word: %BInstall%b is
    # aptitude's bold, %nSome a newline, %16ldK a number before its unit), printf with length modifiers and
    # GCC's flags (%qs quoted, %q+D), {0}, $VAR, markup
    # tags (with attributes, closing, self-closing, <br>, or opening a tag the sentence closes within 500
    # characters: a bound, so that a huge line of bare tags costs linear time), entities.
    # Not placeholders: GCC's %' (an apostrophe: don%'t) and %< %> (quotes, which translators add and
    # drop), a bare <word> nothing closes (GCC's metavariables: <number>, which translators localise), and
    # words in angle brackets with no attribute's `=` (<full name>, e2fsck's <The NULL inode>: text to translate).
    # A named placeholder's name holds no `%` and an address starts where its run of address characters
    # starts: a search then tries each long run once, so a huge word costs its length, not its square.
    "placeholders": re.compile(r"%%|%[A-Z][A-Z0-9_]+(?![a-z])"
                               r"|%(?:\([^()%\s]+\))?\d*\$?[-+#0q]*\d*(?:\.\d+)?[hlLjztw]*[A-Za-z]"
                               r"|%\d+\$?[sd]?|\{[\w.:!]*\}|\$\{?[A-Za-z0-9_]+\}?"
                               r"|(?<!%)(?:<(?P<tag>[A-Za-z][\w-]*)>(?=.{0,500}?</(?P=tag)>)|</[A-Za-z][\w-]*\s*>"
                               r"|<[A-Za-z][\w-]*(?:\s[^<>]*)?/>|<[A-Za-z][\w-]*\s[^<>=]*=[^<>]*>|<(?:br|hr)>)"
                               r"|&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);"),
    "urls": re.compile(rf"(?:https?|ftp)://(?:{_ADDRESS}*{_ADDRESS_END})?|www\.{_ADDRESS}*{_ADDRESS_END}"
                       r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
}


_POSITION_AND_GCC_FLAGS = re.compile(r"(?<=^%)(?:\d+\$)?[q+]*")


def canonical_item(text: str) -> str:
    """A placeholder as compared between the sides: its argument position (translators reorder
    arguments: ``%2$L``) and GCC's quote and location flags dropped, so ``%qs``, ``%s``, ``%1$qs``
    and ``%<%s%>`` agree, as do ``%q+D`` and ``%qD``."""
    return _POSITION_AND_GCC_FLAGS.sub("", text, count=1)
