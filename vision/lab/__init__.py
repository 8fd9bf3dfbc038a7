"""The reader's lab: training, warm starts, evaluation and speed benches.

It imports the runtime (:mod:`chickenfoot.vision`) and the renderer (:mod:`chickenfoot.vision.lab.datasets`); nothing in the runtime
imports it, and the app never needs it (training needs the ``train`` extra).
"""
