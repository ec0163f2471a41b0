"""Decision records: the story of one piece of work (problem, cause, decision, rejected
alternatives, outcome), cited to its thread and anchored to the symbols its fixing commits changed.

history: records from the commits alone; github: a tracker export merged in (and the opt-in live
fetch); thread / extract: numbered thread units and the deterministic field rules; outcome: the
outcome computed when read; model: the optional model pass.
"""
