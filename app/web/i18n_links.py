"""The words of the console's personal links (docs/web.md "The player's token"): the sheet of
every player's link, the action that makes it and its confirmation, in English and Japanese;
app/web/i18n.py takes them into its tables."""

from __future__ import annotations

EN: dict[str, str] = {
    "links_sheet": "Every player's link ({n})",
    "links_sheet_done": "New links for all {n} players still in the event: every link handed out before has stopped working. Print this page for a card each, to cut out and hand over.",
    "links_carried": "The cards shown before stay on this page, beside the new ones, until you leave it (a replaced link's card goes).",
    "new_links_all": "New links for every player",
    "new_links_all_hint": "A sheet of cards for all {n} players still in the event, when links went out in several batches or were lost. Only a new link can be printed (the server keeps no link), so every link handed out so far stops working: hand everyone their new card.",
    "new_links_sure": "Yes, replace every player's link (the ones handed out stop working)",
    "new_links_all_button": "New links for all {n} players",
    "new_links_unconfirmed": "Nothing was changed: tick the box to confirm, since every link handed out so far stops working",
}

JA: dict[str, str] = {
    "links_sheet": "全プレイヤーのリンク（{n} 人）",
    "links_sheet_done": "大会に残っている {n} 人全員に新しいリンクを発行しました。これまで配ったリンクはすべて使えません。このページを印刷し、カードを切り取って手渡してください。",
    "links_carried": "先に表示したカードも、このページを離れるまで新しいカードと一緒に表示されます（作り直したリンクのカードは消えます）。",
    "new_links_all": "全プレイヤーの新しいリンク",
    "new_links_all_hint": "大会に残っている {n} 人全員のカードを印刷します（何回かに分けて配った、なくした、などのとき）。サーバーはリンクを保存しないため新しいリンクしか印刷できず、これまで配ったリンクはすべて使えなくなります。全員に新しいカードを渡してください。",
    "new_links_sure": "はい、全プレイヤーのリンクを作り直します（配ったリンクは使えなくなります）",
    "new_links_all_button": "{n} 人全員の新しいリンク",
    "new_links_unconfirmed": "何も変更していません。これまで配ったリンクがすべて使えなくなるため、チェックを入れて確認してください",
}
