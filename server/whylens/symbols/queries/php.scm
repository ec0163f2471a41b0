; PHP definitions. Namespace names (App\Models) are flattened to dots; "namespace X;" covers
; the rest of the file.
(namespace_definition name: (_) @name) @definition.namespace
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method

; --- comments (a separate query, run only over the spans being compared) ---
(comment) @comment
