; Python definitions. A decorated definition is captured with its decorators (the outer node
; wins when two patterns share a name node).
(function_definition name: (identifier) @name) @definition.function
(decorated_definition definition: (function_definition name: (identifier) @name)) @definition.function
(class_definition name: (identifier) @name) @definition.class
(decorated_definition definition: (class_definition name: (identifier) @name)) @definition.class

; --- comments (a separate query, run only over the spans being compared) ---
(comment) @comment
