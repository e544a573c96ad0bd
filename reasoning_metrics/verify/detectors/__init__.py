"""One module per wrong-step detector, each a small class implementing :class:`..detector.Detector`.

They are listed, by name, in :data:`reasoning_metrics.verify.registry.DETECTORS`; nothing here
registers itself.
"""
