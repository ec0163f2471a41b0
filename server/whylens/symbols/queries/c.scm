; C definitions: functions (also returning pointers), and structs, unions and enums with a body,
; named by their tag or, when anonymous, by the typedef that names them.
(function_definition
  declarator: (function_declarator declarator: (_) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (_) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (_) @name)))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (union_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

; --- comments (a separate query, run only over the spans being compared) ---
(comment) @comment
