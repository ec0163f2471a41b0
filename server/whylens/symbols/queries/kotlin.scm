; Kotlin definitions. Interfaces and enum classes are class_declarations; a companion object is
; not a level of its own (its members read as the class's: RealCall.create, as callers write it).
(class_declaration (type_identifier) @name [(class_body) (enum_class_body)]? @body) @definition.class
(object_declaration (type_identifier) @name (class_body)? @body) @definition.class
(function_declaration (simple_identifier) @name (function_body)? @body) @definition.function

; --- comments (a separate query, run only over the spans being compared) ---
[(line_comment) (multiline_comment)] @comment
