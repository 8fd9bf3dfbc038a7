"""The photo reader: what ships with the app and the command line.

Stages over one detection type (:class:`chickenfoot.vision.detections.Detections`): load
(:mod:`chickenfoot.vision.images`), detect (:mod:`chickenfoot.vision.detect`), read halves (:mod:`chickenfoot.vision.read`),
assemble (:mod:`chickenfoot.vision.assemble`), and for a photo of the table connect into a layout
(:mod:`chickenfoot.vision.table`); :class:`chickenfoot.vision.reader.Reader` wires them to the models in ``reader.json``.
The lab that trains, evaluates and times it is :mod:`chickenfoot.vision.lab`, which this package never
imports.
"""
