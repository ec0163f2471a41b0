; Rust definitions. An impl is named "impl Trait for Type" (or "impl Type") and its items are
; qualified by the type: Type.method.
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(macro_definition name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(mod_item name: (identifier) @name) @definition.module
(impl_item trait: (_) @impl.trait type: (_) @impl.type) @definition.impl
(impl_item !trait type: (_) @impl.type) @definition.impl

; --- comments (a separate query, run only over the spans being compared) ---
[(line_comment) (block_comment)] @comment
