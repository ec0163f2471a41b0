; JavaScript and TypeScript (and TSX): definitions made by assignment or by call, appended
; to each of their queries (parse.QUERY_EXTRA).
; Functions assigned to a member (their body captured: a change inside it is a body change):
; Foo.prototype.bar = function () {} is "Foo.bar",
; exports.render / module.exports.render / this.render = ... are "render".
(expression_statement
  (assignment_expression
    left: (member_expression) @name
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)
            (generator_function body: (_) @body)])) @definition.function
; A chained assignment is named by its first target: req.get = req.header = function () {}
(expression_statement
  (assignment_expression
    left: (member_expression) @name
    right: (assignment_expression
      right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)
              (generator_function body: (_) @body)]))) @definition.function
; Accessors defined by call, named "owner.property": Object.defineProperty(req, 'query', {...}),
; a defineGetter / defineSetter helper (Express's), obj.__defineGetter__('ip', function () {}).
(call_expression
  function: (member_expression
    object: (identifier) @_object (#eq? @_object "Object")
    property: (property_identifier) @_define (#match? @_define "^define(Property|Getter|Setter)$"))
  arguments: (arguments . (_) @owner . (string) @name . (object))) @definition.method
(call_expression
  function: (identifier) @_helper (#match? @_helper "^define(Getter|Setter|Property|Lazy[A-Za-z]*)$")
  arguments: (arguments
    . (_) @owner . (string) @name . [(arrow_function) (function_expression) (object)])) @definition.method
(call_expression
  function: (member_expression
    object: (_) @owner
    property: (property_identifier) @_define (#match? @_define "^__define[GS]etter__$"))
  arguments: (arguments . (string) @name . [(arrow_function) (function_expression)])) @definition.method
