"""Analyses of cuTile kernels: tile code, tile shapes and dtypes, launch grids."""
