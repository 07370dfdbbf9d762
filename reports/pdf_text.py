"""Text on a binder's pages in DejaVu, with what it lacks (Chinese, Japanese, Korean) in WenQuanYi."""

import functools
import threading
from itertools import groupby
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

# DejaVu, embedded (subset) in every binder: PDF's standard fonts know Western European
# letters only, and a restaurant's name is as often Vietnamese ("Phở"), Armenian or Greek.
# What DejaVu lacks (Chinese, Japanese, Korean) is drawn in WenQuanYi Micro Hei, read only
# for a binder that needs it. Licences: reports/fonts/LICENSE.*.
FONTS = Path(__file__).parent / "fonts"
SANS, SANS_BOLD, MONO_FONT = "DejaVuSans", "DejaVuSans-Bold", "DejaVuSansMono"
for _name in (SANS, SANS_BOLD, MONO_FONT):
    pdfmetrics.registerFont(TTFont(_name, str(FONTS / f"{_name}.ttf")))
pdfmetrics.registerFontFamily(SANS, normal=SANS, bold=SANS_BOLD, italic=SANS, boldItalic=SANS_BOLD)
CJK = "WenQuanYiMicroHei"
_DEJAVU_HAS = pdfmetrics.getFont(SANS).face.charToGlyph


_CJK_REGISTERED = threading.Lock()


@functools.cache
def _cjk():
    """The CJK font's name, registered the first time a text needs it (reading it takes a
    fifth of a second, which a binder without such text does not pay); once per process, so
    that binders drawn at once on a worker's threads all use the one font object."""
    with _CJK_REGISTERED:
        if CJK not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(TTFont(CJK, str(FONTS / "wqy-microhei.ttc"), subfontIndex=0))
            pdfmetrics.registerFontFamily(CJK, normal=CJK, bold=CJK, italic=CJK, boldItalic=CJK)
    return CJK


def _foreign(character):
    return ord(character) not in _DEJAVU_HAS and not character.isspace()


def runs(text):
    """`text` in pieces, each (its characters, whether DejaVu lacks them)."""
    return [("".join(piece), foreign) for foreign, piece in groupby(text, key=_foreign)]


def text_width(text, font, size):
    return sum(pdfmetrics.stringWidth(piece, _cjk() if foreign else font, size) for piece, foreign in runs(text))


def draw(canvas, x, y, text, font, size, *, right=False):
    """`text` on the canvas at (x, y), or ending there (`right`), each piece in its font."""
    if right:
        x -= text_width(text, font, size)
    for piece, foreign in runs(text):
        face = _cjk() if foreign else font
        canvas.setFont(face, size)
        canvas.drawString(x, y, piece)
        x += pdfmetrics.stringWidth(piece, face, size)
    canvas.setFont(font, size)


def esc(value):
    """User text as paragraph markup: escaped, and what DejaVu lacks in the CJK font."""
    out = []
    for piece, foreign in runs(str(value) if value is not None else ""):
        piece = piece.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        out.append(f'<font face="{_cjk()}">{piece}</font>' if foreign else piece)
    return "".join(out)


def fit(text, font, size, width):
    """`text` as drawn in `width` points: whole, or cut with an ellipsis (a name may be 200
    characters; the period and the page number beside it must stay legible)."""
    if text_width(text, font, size) <= width:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest start that fits with the ellipsis
        middle = (low + high + 1) // 2
        if text_width(text[:middle].rstrip() + "…", font, size) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"
