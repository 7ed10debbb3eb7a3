"""Adversaries: attribute inference by trained models and disclosure (re-identification) simulation.

One module per kind of attack: ``inference`` (attribute inference with Random Forest, XGBoost,
Naive Bayes, logistic regression and friends), ``disclosure`` (identity and attribute disclosure
against generalized or randomized tables), ``suite`` (the cross-mechanism benchmark's attackers:
attribute inference in both scenarios, anonymeter's risks, record linkage).
"""
