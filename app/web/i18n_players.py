"""The words of the results pages' BATTLEBOOKS and Titan parts (docs/web.md "BATTLEBOOKS from the
console"): the hero each seat played, chosen with a result, the player's own scores and body points,
and a finalist's Colossal Arena answer on their own page, in English and Japanese; app/web/i18n.py
takes them into its tables."""

from __future__ import annotations

EN: dict[str, str] = {
    "played_hero": "{name} played",
    "hero_as_declared": "— (as declared)",
    "hero_choose": "— choose a book",
    "report_with_scores": "Report with body points",
    "report_scores": "Report this result",
    "my_final_rules": "Rules of the final",
    "my_colossal_ask": "The final is played under the Colossal Arena rules only if every finalist says yes. Your answer:",
    "my_colossal_yes": "Yes, Colossal Arena",
    "my_colossal_no": "No, the original rules",
    "my_colossal_said": "You said: {answer}. The final is played under: {version}.",
    "final_rules_saved": "Your answer is recorded.",
    "field_not_number": "{name}'s {field} must be a number",
    "my_books": "Your books: {books}",
    "my_pack_sealed": "Your pack is sealed: its two books are shown when game 1's pairings are published.",
    "my_hero": "My hero for this game",
    "declare_my_hero": "Declare my hero",
    "hero_declared": "Your hero is declared.",
    "block_rounds_hint": "Leave blank to play the rounds the preset's chart gives the players at the start (Clash and Secret Wars: 3 games a game round, 2 game rounds for up to 8 players and one more per further 8, then the Final Battle; Roll Call: 6 games for 8, 3 more per further 8, then the Final Battle), or give a number (3·k + 1 ends with a Final Battle).",
}

JA: dict[str, str] = {
    "played_hero": "{name} が使ったブック",
    "hero_as_declared": "—（宣言どおり）",
    "hero_choose": "— ブックを選ぶ",
    "report_with_scores": "ボディポイント付きで報告",
    "report_scores": "この結果を報告",
    "my_final_rules": "決勝のルール",
    "my_colossal_ask": "決勝は、決勝進出者全員が賛成した場合にのみコロッサル・アリーナのルールで行います。あなたの回答：",
    "my_colossal_yes": "賛成（コロッサル・アリーナ）",
    "my_colossal_no": "反対（オリジナルルール）",
    "my_colossal_said": "あなたの回答：{answer}。決勝のルール：{version}。",
    "final_rules_saved": "回答を記録しました。",
    "field_not_number": "{name} の{field}は数で入力してください",
    "my_books": "あなたのブック：{books}",
    "my_pack_sealed": "あなたのパックは封印されています。第 1 ゲームの対戦表が発表されると 2 冊のブックが表示されます。",
    "my_hero": "このゲームの自分のヒーロー",
    "declare_my_hero": "自分のヒーローを宣言",
    "hero_declared": "ヒーローを宣言しました。",
    "block_rounds_hint": "空欄なら、開始時の参加者数に応じてプリセットの表どおりの回数を行います（クラッシュとシークレット・ウォーズ：1 ゲームラウンド 3 ゲーム、8 人まで 2 ゲームラウンド、8 人増えるごとに 1 つ追加、最後にファイナルバトル。ロールコール：8 人で 6 ゲーム、8 人増えるごとに 3 ゲーム追加、最後にファイナルバトル）。数を入れることもできます（3·k + 1 ならファイナルバトルで終わります）。",
}
