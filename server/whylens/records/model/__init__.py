"""The optional model pass over decision records (opt-in; the rules always run without it).

settings: the ``[llm.distill]`` section; prompt: frozen input snapshot → messages + JSON schema +
``model_input_hash``; client: one OpenAI-compatible chat call (stdlib urllib); validate: strict and
tolerant parsing, citation and anchor checks; queue: the durable sqlite queue in the index folder;
drain: the output ladder over queued records.
"""
