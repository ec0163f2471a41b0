; Ruby definitions. "A::B" names are flattened to dots; a def in a class or module is a method.
(module name: (_) @name) @definition.module
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

; --- comments (a separate query, run only over the spans being compared) ---
(comment) @comment
