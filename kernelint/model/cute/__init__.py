"""Analyses of CuTe DSL kernels: mbarriers, pipelines, TMA, cp.async, predicates, TMEM, static checks."""
