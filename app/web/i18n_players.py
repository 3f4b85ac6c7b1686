"""The words of the results pages' BATTLEBOOKS and Titan parts (docs/web.md "Results of every
kind"): the hero each seat played, chosen with a result, the player's own scores and body points,
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
}
