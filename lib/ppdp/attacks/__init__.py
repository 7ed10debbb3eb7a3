"""Adversaries: attribute inference by trained models and disclosure (re-identification) simulation.

One module per kind of attack: ``inference`` (attribute inference with Random Forest, XGBoost,
Naive Bayes, logistic regression and friends), ``disclosure`` (identity and attribute disclosure
against generalized or randomized tables), ``suite`` (the cross-mechanism benchmark's attackers:
attribute inference in both scenarios, anonymeter's risks, record linkage), ``targeted`` and
``random_tables`` (targeted attribute inference on a release, by class matching, channels and
Mutual Cover's tables), ``exact`` (the same, exactly, over every assignment of released people to
rows where that is small), ``membership`` (whether a person was in a release's input: distance to
the closest record and a shadow-model attack) and ``obfuscation`` (HyObscure's channel).
"""
