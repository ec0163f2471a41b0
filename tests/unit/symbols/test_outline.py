"""Per-language table tests: source snippet → expected (qualified name, kind), in order."""

from __future__ import annotations

import pytest

from whylens.symbols.outline import find, outline, symbol_at

CASES = {
    "python": (
        b'@dataclass\nclass Session(Base):\n    """Doc."""\n\n    @property\n'
        b"    def send(self, request):\n        def retry():\n            pass\n"
        b"        return retry\n\n    class Inner:\n        def method(self):\n"
        b"            pass\n\n\ndef helper():\n    pass\n",
        [("Session", "class"), ("Session.send", "method"), ("Session.send.retry", "function"),
         ("Session.Inner", "class"), ("Session.Inner.method", "method"),
         ("helper", "function")],
    ),
    "javascript": (
        b"class Client {\n  send(req) { return 1 }\n  static create() {}\n"
        b"  onClose = () => {}\n}\nfunction helper() {}\nconst arrow = (x) => x * 2;\n"
        b"export default function main() {}\n"
        b"Router.prototype.handle = function (req) { return 1 };\n"
        b"res.status = function status(code) { return this };\n"
        b"module.exports = function createApp() {};\nexports.render = (x) => x;\n"
        b"module.exports = () => 1;\n",
        [("Client", "class"), ("Client.send", "method"), ("Client.create", "method"),
         ("Client.onClose", "method"), ("helper", "function"), ("arrow", "function"),
         ("main", "function"), ("Router.handle", "function"), ("res.status", "function"),
         ("createApp", "function"), ("render", "function"), ("module.exports", "function")],
    ),
    "typescript": (
        b"interface Shape { area(): number; }\nenum Color { Red }\n"
        b"namespace Geo { export function dist(): number { return 0 } }\n"
        b"abstract class Base { abstract run(): void; stop(): void {} }\n"
        b"export const make = (): Base => null as any;\n",
        [("Shape", "interface"), ("Shape.area", "method"), ("Color", "enum"),
         ("Geo", "namespace"), ("Geo.dist", "function"), ("Base", "class"),
         ("Base.run", "method"), ("Base.stop", "method"), ("make", "function")],
    ),
    "tsx": (
        b"interface Props { title: string }\n"
        b"export function Card(props: Props) { return <div>{props.title}</div>; }\n"
        b"class Panel extends React.Component { render() { return <p/>; } }\n",
        [("Props", "interface"), ("Card", "function"), ("Panel", "class"),
         ("Panel.render", "method")],
    ),
    "go": (
        b"package web\n\ntype Server struct {\n\taddr string\n}\n\n"
        b"type Handler interface {\n\tServe()\n}\n\n"
        b"func (s *Server) Serve() error {\n\treturn nil\n}\n\n"
        b"func (s Server) Addr() string { return s.addr }\n\n"
        b"func (b *Box[T]) Get() T { var x T; return x }\n\nfunc New() *Server { return nil }\n",
        [("Server", "struct"), ("Handler", "interface"), ("(*Server).Serve", "method"),
         ("(Server).Addr", "method"), ("(*Box).Get", "method"), ("New", "function")],
    ),
    "java": (
        b"package p;\npublic class Outer {\n  class Inner { void method() {} }\n"
        b"  Outer() {}\n  static int count(int x) { return x; }\n}\n"
        b"interface Shape { double area(); }\nenum Color { RED; void paint() {} }\n",
        [("Outer", "class"), ("Outer.Inner", "class"), ("Outer.Inner.method", "method"),
         ("Outer.Outer", "method"), ("Outer.count", "method"), ("Shape", "interface"),
         ("Shape.area", "method"), ("Color", "enum"), ("Color.paint", "method")],
    ),
    "kotlin": (
        b"package okhttp3\n\nclass RealCall(val client: Client) : Call {\n"
        b"  override fun execute(): Response { return chain() }\n"
        b"  inner class AsyncCall : Runnable {\n    override fun run() {}\n  }\n"
        b"  companion object {\n    fun create(): RealCall = RealCall(Client())\n  }\n}\n"
        b"fun interface Interceptor {\n  fun intercept(chain: Chain): Response\n}\n"
        b"object Platform { fun get() = 1 }\n"
        b"enum class Protocol { HTTP_1_1; fun alpn() = name }\n"
        b"fun String.toHttpUrl(): HttpUrl = HttpUrl.parse(this)\n",
        [("RealCall", "class"), ("RealCall.execute", "method"), ("RealCall.AsyncCall", "class"),
         ("RealCall.AsyncCall.run", "method"), ("RealCall.create", "method"),
         ("Interceptor", "class"), ("Interceptor.intercept", "method"), ("Platform", "class"),
         ("Platform.get", "method"), ("Protocol", "class"), ("Protocol.alpn", "method"),
         ("toHttpUrl", "function")],
    ),
    "rust": (
        b"mod net {\n    pub struct Bar { a: i32 }\n}\n"
        b"impl<T> fmt::Display for Bar<T> {\n    fn fmt(&self) -> i32 { 1 }\n}\n"
        b"impl Bar {\n    pub fn new() -> Self { Bar { a: 0 } }\n}\n"
        b"trait Speak { fn speak(&self); }\nenum Kind { A, B }\nfn free() {}\n",
        [("net", "module"), ("net.Bar", "struct"), ("impl fmt::Display for Bar", "impl"),
         ("Bar.fmt", "method"), ("impl Bar", "impl"), ("Bar.new", "method"),
         ("Speak", "trait"), ("Speak.speak", "method"), ("Kind", "enum"), ("free", "function")],
    ),
    "c": (
        b"typedef struct { int a; } Point;\nstruct list { struct list *next; };\n"
        b"enum color { RED };\nint *make(int n) { return 0; }\n"
        b"static void run(void) { /* nothing */ }\n",
        [("Point", "struct"), ("list", "struct"), ("color", "enum"), ("make", "function"),
         ("run", "function")],
    ),
    "cpp": (
        b"namespace net {\nclass Socket {\n public:\n  void open() {}\n  ~Socket() {}\n};\n"
        b"struct Addr { int port; };\n}\n"
        b"void net::Socket::close() {}\ntemplate <typename T> T twice(T x) { return x; }\n",
        [("net", "namespace"), ("net.Socket", "class"), ("net.Socket.open", "method"),
         ("net.Socket.~Socket", "method"), ("net.Addr", "struct"),
         ("net.Socket.close", "method"), ("twice", "function")],
    ),
    "csharp": (
        b"namespace App.Core {\n  public class Service {\n    public void Run() {}\n"
        b"    public Service() {}\n  }\n  interface IRepo { void Save(); }\n"
        b"  struct Point { }\n  enum Mode { On }\n}\n",
        [("App.Core", "namespace"), ("App.Core.Service", "class"),
         ("App.Core.Service.Run", "method"), ("App.Core.Service.Service", "method"),
         ("App.Core.IRepo", "interface"), ("App.Core.IRepo.Save", "method"),
         ("App.Core.Point", "struct"), ("App.Core.Mode", "enum")],
    ),
    "ruby": (
        b"module Billing\n  class Invoice < Base\n    def total\n      1\n    end\n\n"
        b"    def self.build\n    end\n  end\nend\n\ndef helper\nend\n",
        [("Billing", "module"), ("Billing.Invoice", "class"), ("Billing.Invoice.total", "method"),
         ("Billing.Invoice.build", "method"), ("helper", "function")],
    ),
    "php": (
        b"<?php\nnamespace App\\Models;\n\nclass User extends Model {\n"
        b"    public function save() { return true; }\n}\n"
        b"interface Jsonable { public function toJson(); }\n"
        b"trait Greets { function hello() {} }\nfunction helper() {}\n",
        [("App.Models", "namespace"), ("App.Models.User", "class"),
         ("App.Models.User.save", "method"), ("App.Models.Jsonable", "interface"),
         ("App.Models.Jsonable.toJson", "method"), ("App.Models.Greets", "trait"),
         ("App.Models.Greets.hello", "method"), ("App.Models.helper", "function")],
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_definitions_and_qualified_names(language):
    source, expected = CASES[language]
    assert [(s.name, s.kind) for s in outline(source, language)] == expected


@pytest.mark.parametrize("language", sorted(CASES))
def test_name_positions_point_at_the_name(language):
    source, _ = CASES[language]
    lines = source.decode("utf-8").split("\n")
    for symbol in outline(source, language):
        text = lines[symbol.name_line - 1][symbol.name_col:symbol.name_end_col]
        assert text, symbol
        assert symbol.start_line <= symbol.name_line <= symbol.end_line
        bare = symbol.name.rsplit(".", 1)[-1]
        if symbol.kind == "impl":
            assert text.startswith(symbol.name.split()[-1])  # the type: "Bar<T>" names "Bar"
        elif language != "cpp" or "::" not in text:
            assert bare.endswith(text) or text.endswith(bare), (symbol, text)


def test_python_lines_are_one_based_inclusive_and_include_decorators():
    source, _ = CASES["python"]
    symbols = {s.name: s for s in outline(source, "python")}
    assert (symbols["Session"].start_line, symbols["Session"].end_line) == (1, 13)
    assert symbols["Session"].name_line == 2
    assert (symbols["Session.send"].start_line, symbols["Session.send"].end_line) == (5, 9)
    assert (symbols["helper"].start_line, symbols["helper"].end_line) == (16, 17)


def test_symbol_at_is_innermost_and_find_matches_suffixes():
    source, _ = CASES["python"]
    symbols = outline(source, "python")
    assert symbol_at(symbols, 8).name == "Session.send.retry"
    assert symbol_at(symbols, 9).name == "Session.send"
    assert symbol_at(symbols, 3).name == "Session"
    assert symbol_at(symbols, 14) is None
    assert find(symbols, "Session.send").name == "Session.send"
    assert find(symbols, "send").name == "Session.send"
    assert find(symbols, "Inner.method").name == "Session.Inner.method"
    assert find(symbols, "nope") is None
    go = outline(CASES["go"][0], "go")
    assert find(go, "Serve").name == "(*Server).Serve"
    # Go's documentation names methods without the receiver's pointer mark.
    assert find(go, "Server.Serve").name == "(*Server).Serve"
    assert find(go, "(Server).Serve").name == "(*Server).Serve"
    assert find(go, "Handler.Serve") is None
    ambiguous = outline(b"class A:\n    def f(self): pass\nclass B:\n    def f(self): pass\n",
                        "python")
    assert find(ambiguous, "f") is None
    assert find(ambiguous, "B.f").name == "B.f"


def test_csharp_file_scoped_namespace_covers_the_rest_of_the_file():
    source = b"using System;\nnamespace App.Web;\n\nclass Home {\n  void Index() {}\n}\n"
    symbols = outline(source, "csharp")
    assert [(s.name, s.kind) for s in symbols] == [
        ("App.Web", "namespace"), ("App.Web.Home", "class"), ("App.Web.Home.Index", "method")]
    assert (symbols[0].start_line, symbols[0].end_line) == (2, 6)


@pytest.mark.parametrize("source", [
    b"", b"\x00\x01\x02\xff\xfe", b"def (((:\n  ]]]", "ünïcode".encode("utf-16"),
    b"class A:\n" + b"    " * 2000 + b"pass\n", b"(" * 5000,
])
@pytest.mark.parametrize("language", sorted(CASES))
def test_garbage_never_raises(language, source):
    symbols = outline(source, language)
    assert isinstance(symbols, list)


def test_partial_input_keeps_what_parses():
    symbols = outline(b"def ok():\n    pass\n\ndef broken(:\n    pass\n", "python")
    assert "ok" in [s.name for s in symbols]


def test_unsupported_language_is_empty_not_an_error():
    assert outline(b"# title\n", "markdown") == []
    assert outline(b"x", None) == []
    assert outline(b"x", "no-such-language") == []


# The JS/TS definitions users expect (the cards issue): accessors defined by call, exports,
# members assigned a function, chained assignments.
JS_EXPECTED = (
    b"var req = Object.create(http.IncomingMessage.prototype);\n"
    b"req.get = req.header = function header(name) {\n  return 1;\n};\n"
    b"module.exports.render = function render(a) { return a; };\n"
    b"exports.send = function (x) { return x; };\n"
    b"obj.method = function () {};\n"
    b"defineGetter(req, 'protocol', function protocol() {\n  return 1;\n});\n"
    b"req.__defineGetter__('ip', function () {\n  return this.ips[0];\n});\n"
    b"Object.defineProperty(req, 'query', {\n  configurable: true,\n"
    b"  get: function query() { return 1; }\n});\n"
    b"Object.defineProperty(exports, 'static', { value: function serve() { return 1; } });\n"
    b"function init() {\n  Object.defineProperty(this, 'router', { get: function () {} });\n}\n"
)


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
def test_js_accessors_exports_and_member_functions_are_symbols(language):
    symbols = outline(JS_EXPECTED, language)
    names = [s.name for s in symbols]
    for name in ("req.get", "render", "send", "obj.method", "req.protocol", "req.ip",
                 "req.query", "static", "init.router"):
        assert name in names, (name, names)
    protocol = find(symbols, "req.protocol")
    assert (protocol.start_line, protocol.end_line) == (8, 10)
    assert symbol_at(symbols, 9).name == "req.protocol"  # a line of its body
    assert find(symbols, "protocol") is protocol  # found by its short name too
    text = JS_EXPECTED.decode().splitlines()[protocol.name_line - 1]
    assert text[protocol.name_col:protocol.name_end_col] == "'protocol'"


def test_define_property_with_a_computed_name_is_not_a_symbol():
    source = b"function define(obj, name, get) {\n  Object.defineProperty(obj, name, { get });\n}\n"
    assert [s.name for s in outline(source, "javascript")] == ["define"]
