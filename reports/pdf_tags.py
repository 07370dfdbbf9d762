"""A tagged PDF from ReportLab, which draws but does not tag: what a screen reader needs.

Drawing is wrapped in marked content (`BDC`/`EMC`) tied by MCID to a structure tree of
headings, paragraphs, tables (Table/TR/TH/TD) and figures with alt text; page furniture and
table rules are artifacts. The tree, the parent tree, the language, the mark and the XMP
metadata are written into ReportLab's own document objects when the canvas is saved.
"""

from contextlib import contextmanager
from xml.sax.saxutils import escape

from reportlab.pdfbase.pdfdoc import (
    PDFArray,
    PDFDictionary,
    PDFName,
    PDFObject,
    PDFObjectReference,
    PDFStream,
    PDFString,
    PDFtrue,
)
from reportlab.platypus import Flowable, Paragraph
from reportlab.platypus.tables import TableRenderCB

LANG = "en-US"
# The roles a paragraph style stands for (a subhead is a smaller second level, so that no
# level is skipped); any other style is a paragraph.
HEADINGS = {"H1": "H1", "H2": "H2", "Subhead": "H2", "Title": "H1"}


class Node:
    """A structure element: its role, its parent, and its kids (nodes or (page, MCID))."""

    __slots__ = ("role", "parent", "kids", "alt", "scope")

    def __init__(self, role, parent=None, alt=None, scope=None):
        self.role, self.parent, self.kids, self.alt, self.scope = role, parent, [], alt, scope
        if parent is not None:
            parent.kids.append(self)


class Tagger:
    """The structure tree of one document, filled in the order its pages are drawn."""

    def __init__(self):
        self.root = Node("Document")
        self.page = 0  # the page being drawn, from 0
        self.by_page = {}  # page -> the node of each MCID, in MCID order
        self.open = None  # the node whose marked content is open (content is never nested)

    def begin(self, canvas, node):
        """Open `node`'s marked content on this page; False where one is open already (a
        paragraph in a table cell belongs to the cell)."""
        if self.open is not None:
            return False
        mcids = self.by_page.setdefault(self.page, [])
        node.kids.append((self.page, len(mcids)))
        canvas._code.append(f"/{node.role} <</MCID {len(mcids)}>> BDC")
        mcids.append(node)
        self.open = node
        return True

    def end(self, canvas):
        canvas._code.append("EMC")
        self.open = None

    @contextmanager
    def marked(self, canvas, node):
        opened = self.begin(canvas, node)
        try:
            yield
        finally:
            if opened:
                self.end(canvas)

    @contextmanager
    def artifact(self, canvas):
        """Drawing that is not content: page headers and footers, rules, backgrounds."""
        if self.open is not None:
            yield
            return
        canvas._code.append("/Artifact BMC")
        self.open = "artifact"
        try:
            yield
        finally:
            canvas._code.append("EMC")
            self.open = None

    def element(self, role, alt=None):
        return Node(role, self.root, alt)

    # Writing the tree ------------------------------------------------------------------------

    def finish(self, canvas, *, title, lang=LANG, ua=False):
        """Write the tree, the page's `StructParents`, the catalog's entries and the XMP into
        the canvas's document; call once every page has been shown, before saving."""
        doc = canvas._doc
        pages = doc.Pages.pages
        names = {}

        def ref(node):
            return PDFObjectReference(names[id(node)])

        order = []

        def walk(node):
            names[id(node)] = f"FogxSE{len(order)}"
            order.append(node)
            for kid in node.kids:
                if isinstance(kid, Node):
                    walk(kid)

        walk(self.root)
        tree_root = PDFDictionary({"Type": PDFName("StructTreeRoot")})
        tree_ref = doc.Reference(tree_root, "FogxStructTreeRoot")
        for node in order:
            doc.Reference(_Element(node, names, lang), names[id(node)])
        numbers = []
        for index, page in enumerate(pages):
            page.__NoDefault__ = [*type(page).__NoDefault__, "StructParents", "Tabs"]
            page.Tabs = PDFName("S")
            if index in self.by_page:
                page.StructParents = index
                numbers += [index, PDFArray([ref(node) for node in self.by_page[index]])]
        parents = doc.Reference(PDFDictionary({"Nums": PDFArray(numbers)}), "FogxParentTree")
        tree_root.dict.update({"K": ref(self.root), "ParentTree": parents, "ParentTreeNextKey": len(pages)})
        catalog = doc.Catalog
        catalog.StructTreeRoot = tree_ref
        catalog.MarkInfo = PDFDictionary({"Marked": PDFtrue})
        catalog.Lang = PDFString(lang)
        catalog.ViewerPreferences = PDFDictionary({"DisplayDocTitle": PDFtrue})
        catalog.Metadata = PDFStream(
            PDFDictionary({"Type": PDFName("Metadata"), "Subtype": PDFName("XML")}),
            xmp(title, lang, ua).encode("utf-8"),
            filters=[],
        )


class _Element(PDFObject):
    """A structure element, written straight to bytes: a binder has thousands of them (each
    table cell is one), which ReportLab's dictionaries would format slowly."""

    def __init__(self, node, names, lang):
        self.node, self.names, self.lang = node, names, lang

    def format(self, document):
        numbers = document.idToObjectNumberAndVersion

        def ref(name):
            number, generation = numbers[name]
            return f"{number} {generation} R"

        node = self.node
        parent = self.names[id(node.parent)] if node.parent is not None else "FogxStructTreeRoot"
        home = next((kid[0] for kid in node.kids if isinstance(kid, tuple)), None)
        kids = []
        for kid in node.kids:
            if isinstance(kid, Node):
                kids.append(ref(self.names[id(kid)]))
            elif kid[0] == home:
                kids.append(str(kid[1]))
            else:
                kids.append(f"<< /Type /MCR /Pg {ref(f'Page{kid[0] + 1}')} /MCID {kid[1]} >>")
        out = f"<< /Type /StructElem /S /{node.role} /P {ref(parent)} /K [{' '.join(kids)}]"
        if home is not None:
            out += f" /Pg {ref(f'Page{home + 1}')}"
        if node.scope:
            out += f" /A << /O /Table /Scope /{node.scope} >>"
        out = out.encode("latin-1")
        if node.alt:
            out += b" /Alt " + PDFString(node.alt).format(document)
        if node.parent is None:
            out += b" /Lang " + PDFString(self.lang).format(document)
        return out + b" >>"


def xmp(title, lang=LANG, ua=False):
    """The document's XMP packet: its title and language, and the PDF/UA-1 claim where made."""
    claim = (
        (
            '<rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/">'
            "<pdfuaid:part>1</pdfuaid:part></rdf:Description>"
        )
        if ua
        else ""
    )
    return (
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{escape(title)}</rdf:li></rdf:Alt></dc:title>'
        f"<dc:language><rdf:Bag><rdf:li>{escape(lang)}</rdf:li></rdf:Bag></dc:language>"
        "<dc:format>application/pdf</dc:format></rdf:Description>"
        f'{claim}</rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
    )


def tagger_of(canvas):
    return getattr(canvas, "tagger", None)


# Flowables that tag themselves ---------------------------------------------------------------


class TaggedParagraph(Paragraph):
    """A paragraph marked as its style's role (H1, H2, H3 or P)."""

    def drawOn(self, canvas, x, y, _sW=0):
        tagger = tagger_of(canvas)
        if tagger is None:
            return super().drawOn(canvas, x, y, _sW)
        node = tagger.element(HEADINGS.get(self.style.name, "P"))
        with tagger.marked(canvas, node):
            return super().drawOn(canvas, x, y, _sW)


class Figure(Flowable):
    """A drawing or an image as a figure with its alt text."""

    def __init__(self, content, alt):
        super().__init__()
        self.content, self.alt = content, alt

    def wrap(self, width, height):
        self.width, self.height = self.content.wrap(width, height)
        return self.width, self.height

    def drawOn(self, canvas, x, y, _sW=0):
        tagger = tagger_of(canvas)
        if tagger is None:
            return self.content.drawOn(canvas, x, y, _sW)
        with tagger.marked(canvas, tagger.element("Figure", self.alt)):
            return self.content.drawOn(canvas, x, y, _sW)


class TableTags(TableRenderCB):
    """A table's rows and cells as TR, TH and TD; one Table element for all the pages it
    runs over, whose repeated header rows are artifacts after the first. Cells of
    `header_columns` head their rows (a label beside its value)."""

    def __init__(self, header_rows=1, header_columns=()):
        self.header_rows, self.header_columns = header_rows, frozenset(header_columns)
        self.node = None
        self.row = None
        self.continued = False

    def _tagger(self, table):
        return tagger_of(table.canv)

    def startTable(self, table):
        tagger = self._tagger(table)
        if tagger is None:
            return
        self.continued = self.node is not None
        if self.node is None:
            self.node = tagger.element("Table")

    def _artifact_start(self, table):
        tagger = self._tagger(table)
        if tagger is not None and tagger.open is None:
            table.canv._code.append("/Artifact BMC")
            tagger.open = "artifact"

    def _artifact_end(self, table):
        tagger = self._tagger(table)
        if tagger is not None and tagger.open == "artifact":
            table.canv._code.append("EMC")
            tagger.open = None

    startBG = startLines = _artifact_start
    endBG = endLines = _artifact_end

    def startRow(self, table, row):
        if self._tagger(table) is None or self.node is None:
            return
        repeated = self.continued and row < self.header_rows
        self.row = None if repeated else Node("TR", self.node)

    def startCell(self, table, row, col, value, style, pos, size):
        tagger = self._tagger(table)
        if tagger is None or self.node is None:
            return
        if self.row is None:
            self._artifact_start(table)
            return
        if row < self.header_rows and not self.continued:
            node = Node("TH", self.row, scope="Column")
        elif col in self.header_columns:
            node = Node("TH", self.row, scope="Row")
        else:
            node = Node("TD", self.row)
        tagger.begin(table.canv, node)

    def endCell(self, table):
        tagger = self._tagger(table)
        if tagger is not None and tagger.open is not None:
            if tagger.open == "artifact":
                self._artifact_end(table)
            else:
                tagger.end(table.canv)

    def endRow(self, table):
        self.row = None

    def endTable(self, table):
        pass
