; Go definitions. A method's receiver type names it: (*Server).Serve or (Server).Serve.
(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @receiver))
  name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type) @body) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface

; --- comments (a separate query, run only over the spans being compared) ---
(comment) @comment
