"""ROSCOE-style step scores for Chinese and English reasoning chains."""
