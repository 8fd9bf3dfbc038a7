"""The photo reader: what ships with the app and the command line.

Stages over one detection type (:class:`vision.detections.Detections`): load
(:mod:`vision.images`), detect (:mod:`vision.detect`), read halves (:mod:`vision.read`),
assemble (:mod:`vision.assemble`), and for a photo of the table connect into a layout
(:mod:`vision.table`); :class:`vision.reader.Reader` wires them to the models in ``reader.json``.
The lab that trains, evaluates and times it is :mod:`vision.lab`, which this package never
imports.
"""
