; JavaScript definitions: declarations, class members, and functions bound to a variable.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(field_definition
  property: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
; Definitions by member assignment and by call: js_members.scm (parse.QUERY_EXTRA).

; --- comments (a separate query, run only over the spans being compared) ---
(comment) @comment
