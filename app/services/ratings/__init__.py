"""Ratings: pools, the incremental update and the full recompute, run as jobs, and the reads
(battlebooks.md "World rankings"; api.md "Resources"; the rule itself is in app/core/ratings.py).

The package, each module importing only those above it:

* ``pools``: which events and stages feed a pool, which pools a match rates into, the pool row.
* ``games``: the pool's games in rating order, streamed from the database into the core's games.
* ``writing``: bulk writing of ratings and history (binary COPY on Postgres, batches on SQLite).
* ``characters``: a base's per-character pools, rated together (a family recompute).
* ``jobs``: queueing the rating work; the incremental update and the full recompute.
* ``reads``: the pools, the leaderboard and a player's ratings with their history.
* ``admin``: a pool's settings and a player's starting rating (either may queue a recompute).
* ``lag``: each pool's lag behind its confirmed matches (for ``GET /metrics``).

The names below are the package's interface; callers import them from ``app.services.ratings``.
"""

from __future__ import annotations

from app.services.ratings.admin import pool_settings, put_pool_settings, set_start_rating
from app.services.ratings.jobs import (
    RECOMPUTE_KIND,
    UPDATE_KIND,
    enqueue_rating_update,
    enqueue_recompute,
    recompute_job,
    recompute_pool,
    update_job,
    update_pool,
)
from app.services.ratings.lag import pool_lag
from app.services.ratings.pools import Sources, get_pool, match_pools, pool_sources
from app.services.ratings.reads import BoardRow, PlayerPoolRating, PoolRow, leaderboard, player_ratings, pools

__all__ = [
    "RECOMPUTE_KIND",
    "UPDATE_KIND",
    "BoardRow",
    "PlayerPoolRating",
    "PoolRow",
    "Sources",
    "enqueue_rating_update",
    "enqueue_recompute",
    "get_pool",
    "leaderboard",
    "match_pools",
    "player_ratings",
    "pool_lag",
    "pools",
    "pool_settings",
    "pool_sources",
    "put_pool_settings",
    "recompute_job",
    "recompute_pool",
    "set_start_rating",
    "update_job",
    "update_pool",
]
