; TypeScript and TSX definitions (parse.QUERY_FILE points tsx here).
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(interface_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module
; Functions assigned to a member: Foo.prototype.bar = function () {} is "Foo.bar",
; exports.render / module.exports.render / this.render = ... are "render".
(expression_statement
  (assignment_expression
    left: (member_expression) @name
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function
; A chained assignment is named by its first target: req.get = req.header = function () {}
(expression_statement
  (assignment_expression
    left: (member_expression) @name
    right: (assignment_expression
      right: [(arrow_function) (function_expression) (generator_function)]))) @definition.function
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

; --- comments (a separate query, run only over the spans being compared) ---
(comment) @comment
