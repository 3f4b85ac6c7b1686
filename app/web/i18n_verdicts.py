"""The verdict page's words for a Titan: The Arena game log, a Battle Royal record and a Rite of
Command duel (app/web/verdicts.py), and every adjudicator's name, in English and Japanese: an
adjudicator of the registry without its name in both languages fails as this module is imported."""

from __future__ import annotations

from app.core.games.registry import ADJUDICATORS

EN: dict[str, str] = {
    "ta_verdict": "The game, as the log tells it",
    "ta_win": "{name} wins with {score} points, ahead of {other}'s {theirs}.",
    "ta_win_alone": "{name} wins with {score} points.",
    "ta_win_tied": "{name} wins: level with {others} on {score} points, and first by the tie-break below.",
    "ta_rules": "{variant}; ties broken by {rule}.",
    "ta_variant_titan_the_arena": "Titan: The Arena, the original rules",
    "ta_variant_colossal_arena": "Colossal Arena",
    "ta_rule_wbc": "the WBC rule (the most points bet on the last creature to die, then the one before, …)",
    "ta_rule_last_play": "the original rule (the player who made the last play)",
    "ta_deaths": "The creatures that died, in order: {creatures}.",
    "ta_no_deaths": "No creature died.",
    "ta_ties": "How each tie was broken",
    "ta_tie_bets": "{a} ranks above {b}, both on {score} points: {a} bet {va} on the {creature} ({when}), {b} {vb}.",
    "ta_died_last": "the last creature to die",
    "ta_died_n": "death {n} of {of}",
    "ta_tie_last_play": "{a} ranks above {b}, both on {score} points: {a} made the last play.",
    "ta_tie_dice": "{a} ranks above {b}, both on {score} points: the dice rolled from the event's seed, {va} to {vb}.",
    "ta_players": "Each player",
    "ta_kills": "Kills",
    "ta_bets": "Bets on each creature",
    "ta_creature": "Creature",
    "ta_bet_count": "Bets",
    "ta_bet_points": "Points bet",
    "ta_bet_secret": "Of them secret",
    "br_verdict": "The game, as the record tells it",
    "br_win": "{name} wins: the last one standing, with {points} body points left.",
    "br_shared": "{names} share first place: the last standing, eliminated together at turn {turn}.",
    "br_how": "{name} held the token first; {turns} turns replayed, the token passing to the right, every rule kept. The others are placed by when they fell, the latest first.",
    "br_at_the_end": "Each player at the end",
    "br_status": "In the game",
    "br_standing": "still standing",
    "br_out_at": "eliminated at turn {n}, in {name}'s attack",
    "br_body_points": "Body points at the end",
    "roc_verdict": "The duel, as the record tells it",
    "roc_win": "{name} wins: two rings of the three win the game, and {name} took {won}, {other} {theirs}.",
    "roc_draw": "A draw: two rings of the three win the game, and nobody took two — {name} {won}, {other} {theirs}, {none} to nobody.",
    "roc_how": "Once every card was down, each ring was fought on its own: its soldiers took up weapons from the left, the first soldier of each side fought, the higher power won (on equal power, the one further left) and fought on, 3 weaker for each fight won, and the ring went to the player with soldiers left in it.",
    "roc_by_ring": "Ring by ring",
    "roc_ring_won": "Ring {n} to {name}: {how}.",
    "roc_ring_nobody": "Ring {n} to nobody: no soldier was played into it.",
    "roc_fight": "{a} beat {b}, {pa} to {pb}",
    "roc_fight_level": "{a} beat {b}, both at {pa}, standing further left",
    "roc_then": "; then ",
    "roc_unopposed": "{soldiers} met no opponent",
    "roc_soldier": "{name}'s {card}",
    "roc_soldier_armed": "{name}'s {card} (with {weapons})",
    "roc_soldier_at": "{name}'s {card} (soldier {at} of the ring)",
    "roc_soldier_at_armed": "{name}'s {card} (soldier {at} of the ring, with {weapons})",
    "roc_comma": ", ",
    "roc_at_the_end": "Each player at the end",
    "roc_rings_won": "Rings won",
    "roc_wager": "Wager",
    "roc_receives": "Receives",
    "roc_wagers_win": "{name} takes both wagers.",
    "roc_wagers_back": "A draw: each wager goes back to its owner.",
    "adjudicator_titan_arena": "Titan: The Arena",
    "adjudicator_rite_of_command": "Rite of Command",
    "adjudicator_battlebooks_royal": "BATTLEBOOKS Battle Royal",
    "adjudicator_strategic_titan": "Strategic Titan",
}

JA: dict[str, str] = {
    "ta_verdict": "ゲーム記録が示す対局の結果",
    "ta_win": "{name} の勝ち：{score} 点（{other} は {theirs} 点）。",
    "ta_win_alone": "{name} の勝ち：{score} 点。",
    "ta_win_tied": "{name} の勝ち：{others} と {score} 点で並び、下記のタイブレークで 1 位です。",
    "ta_rules": "{variant}。同点は{rule}で決めます。",
    "ta_variant_titan_the_arena": "タイタン：ジ・アリーナ（オリジナルルール）",
    "ta_variant_colossal_arena": "コロッサル・アリーナ",
    "ta_rule_wbc": "WBC ルール（最後に倒れたクリーチャーへの賭け点が多い順、次にその前に倒れたクリーチャー…）",
    "ta_rule_last_play": "オリジナルルール（最後のプレイをしたプレイヤーが上位）",
    "ta_deaths": "倒れたクリーチャー（順に）：{creatures}。",
    "ta_no_deaths": "倒れたクリーチャーはいません。",
    "ta_ties": "同点の決め方",
    "ta_tie_bets": "{a} が {b} より上位（ともに {score} 点）：{creature}（{when}）への賭けが {a} は {va} 点、{b} は {vb} 点。",
    "ta_died_last": "最後に倒れたクリーチャー",
    "ta_died_n": "{of} 体中 {n} 番目に倒れた",
    "ta_tie_last_play": "{a} が {b} より上位（ともに {score} 点）：最後のプレイをしたのは {a} です。",
    "ta_tie_dice": "{a} が {b} より上位（ともに {score} 点）：大会のシードから振ったダイスで {va} 対 {vb}。",
    "ta_players": "各プレイヤー",
    "ta_kills": "撃破数",
    "ta_bets": "クリーチャーごとの賭け",
    "ta_creature": "クリーチャー",
    "ta_bet_count": "賭けの数",
    "ta_bet_points": "賭け点",
    "ta_bet_secret": "うち秘密の賭け",
    "br_verdict": "記録が示す対局の結果",
    "br_win": "{name} の勝ち：最後まで残り、ボディポイントは {points} です。",
    "br_shared": "{names} が同率 1 位：最後に残った全員がターン {turn} で同時に脱落しました。",
    "br_how": "最初のトークンは {name}。{turns} ターンを再生し、トークンは右隣へ渡り、規則違反はありません。ほかのプレイヤーは後に脱落した順に並びます。",
    "br_at_the_end": "終了時の各プレイヤー",
    "br_status": "対局での状態",
    "br_standing": "残存",
    "br_out_at": "ターン {n}（{name} の攻撃）で脱落",
    "br_body_points": "終了時のボディポイント",
    "roc_verdict": "記録が示す決闘の結果",
    "roc_win": "{name} の勝ち：3 つのリングのうち 2 つを取ったプレイヤーが勝ちます。{name} は {won} つ、{other} は {theirs} つ取りました。",
    "roc_draw": "引き分け：3 つのリングのうち 2 つを取ったプレイヤーが勝ちますが、2 つ取ったプレイヤーはいません（{name} {won}、{other} {theirs}、どちらのものでもないリング {none}）。",
    "roc_how": "すべての札が出たあと、リングごとに戦います：兵士は左から順に武器を取り、双方の先頭の兵士が戦い、力の大きいほうが勝ちます（同じ力なら左にいるほう）。勝った兵士は勝つたびに力が 3 下がって次の相手と戦い、兵士が残ったプレイヤーがそのリングを取ります。",
    "roc_by_ring": "リングごとの結果",
    "roc_ring_won": "リング {n} は {name} のもの：{how}。",
    "roc_ring_nobody": "リング {n} はどちらのものでもありません：兵士が置かれませんでした。",
    "roc_fight": "{a} が {b} に勝利（{pa} 対 {pb}）",
    "roc_fight_level": "{a} が {b} に勝利（ともに {pa}、左にいるほうの勝ち）",
    "roc_then": "、続いて ",
    "roc_unopposed": "{soldiers} に相手がいませんでした",
    "roc_soldier": "{name} の {card}",
    "roc_soldier_armed": "{name} の {card}（{weapons} を持つ）",
    "roc_soldier_at": "{name} の {card}（リングの {at} 番目の兵士）",
    "roc_soldier_at_armed": "{name} の {card}（リングの {at} 番目の兵士、{weapons} を持つ）",
    "roc_comma": "、",
    "roc_at_the_end": "終了時の各プレイヤー",
    "roc_rings_won": "取ったリング",
    "roc_wager": "賭け金",
    "roc_receives": "受け取るもの",
    "roc_wagers_win": "{name} が両者の賭け金を受け取ります。",
    "roc_wagers_back": "引き分けなので、賭け金はそれぞれの持ち主に戻ります。",
    "adjudicator_titan_arena": "タイタン・ジ・アリーナ",
    "adjudicator_rite_of_command": "ライト・オブ・コマンド",
    "adjudicator_battlebooks_royal": "BATTLEBOOKS バトルロイヤル",
    "adjudicator_strategic_titan": "ストラテジック・タイタン",
}


def adjudicator_key(name: str) -> str:
    """The key of an adjudicator's name in words (``titan-arena`` → ``adjudicator_titan_arena``)."""
    return "adjudicator_" + name.replace("-", "_")


# every adjudicator of the registry is said by its game's name (verdicts.adjudicator_named)
_unnamed = [
    f"{name} ({lang})"
    for name in ADJUDICATORS
    for lang, words in (("en", EN), ("ja", JA))
    if adjudicator_key(name) not in words
]
if _unnamed:
    raise ImportError(f"adjudicators without a name in words: {', '.join(_unnamed)}")
