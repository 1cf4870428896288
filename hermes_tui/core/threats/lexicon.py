"""Word lists the pattern table is built from, in English and the languages attacks came in.

Issue 23: a note saying "ignore the previous instructions" in German, French, Spanish,
Portuguese, Italian, Russian, Chinese, Japanese or Korean went through a scanner that only
knew English. Each list is a regex alternation; the rows of patterns.py combine them (an
override verb near an instruction noun, a request verb near "system prompt", …). Verb lists
hold imperative forms where a language has them, so a statement ("der Linter ignoriert die
Regeln") is not read as an order. CJK text has no word boundaries: its lists are matched as
plain substrings and their rows use short windows.
"""

from __future__ import annotations

import re

# ---- English phrases the first rows share --------------------------------------------------

ANY = r"(?:all|any|the|your|my|of|these|those)"
NOT_A_MEASURE = (
    r"(?!\s*(?:'s\s+)?(?:length|size|token|tokens|hash|checksum|char|chars|characters|count"
    r"|cache|template|file|path|builder|version|diff|budget)\b)"
)
CONTEXT_NOUNS = (
    r"(?:(?:conversation|chat|session)(?:\s+(?:history|log|logs|transcript|contents?))?"
    r"|transcripts?|context(?:\s+window)?|memory|memories|memory\s+files|system\s+prompt"
    r"|api\s+keys?|keys|credentials|secrets|tokens|passwords|environment(?:\s+variables)?"
    r"|env\s+vars|ssh\s+keys|private\s+files|everything|session\s+database|\.env(?:\s+file)?)"
)
OUTSIDE = (
    r"(?:https?://|webhook|discord|telegram|pastebin|\S+@\S+\.\w+|\S+\.(?:com|net|org|io|xyz|ru"
    r"|cn|site|cc|example)\b|(?:an?\s+|the\s+)?(?:external|remote|third[\s-]party|outside)\s+"
    r"(?:server|service|url|endpoint|host|address|site)|(?:a|the)\s+(?:sync|control|collection)"
    r"\s+server|the\s+endpoint)"
)

# Within one clause: a dot ends it unless a word goes on ("config.yaml", "terminal.sandbox").
CLAUSE = r"(?:[^.\n]|\.(?=\w))"

# ---- "ignore / forget the previous instructions" -------------------------------------------

# Verbs ordering the model to drop what it was told (imperative forms).
OVERRIDE_VERB = (
    r"(?:\b(?:ignoriere|ignorier|ignoriert|vergiss|vergesst|missachte|übergehe|verwirf"  # de
    r"|(?:beachte|befolge|folge)\s+(?:\w+\s+){0,2}(?:keine|nicht|nichts)"
    r"|ignorez|oublie|oubliez|néglige|ne\s+tiens\s+(?:pas|plus)\s+compte\s+d"  # fr
    r"|n['’]obéis\s+(?:plus|pas)\s+(?:à|aux)|ne\s+respecte\s+(?:plus|pas)"
    r"|olvida|olvide|olvídate|olvidate|omite|desobedece|haz\s+caso\s+omiso\s+(?:a|de)"  # es
    r"|no\s+(?:sigas|obedezcas|respetes)|não\s+(?:siga|obedeça|respeite)|non\s+(?:seguire|rispettare)"
    r"|esqueça|esqueca|esquece|desconsidere|desconsidera|ignora|dimentica|trascura"  # pt, it
    r"|игнорируй\w*|проигнорируй\w*|забудь\w*|не\s+обращай\s+внимания\s+на|отбрось"  # ru
    r"|negeer|vergeet|zignoruj|zapomnij|pomiń|abaikan|lupakan|bỏ\s+qua|quên\s+đi"  # nl pl id vi
    r"|görmezden\s+gel|unut|yok\s+say"  # tr
    r"|fais\s+abstraction\s+d|ne\s+suis\s+(?:plus|pas)|pasa\s+por\s+alto|pasar\s+por\s+alto"
    r"|ne\s+tiens\s+aucun\s+compte\s+d|deja\s+de\s+(?:obedecer|seguir|cumplir|respetar)"
    r"|arr[êe]te\s+de\s+(?:suivre|respecter|obéir)|pare\s+de\s+(?:seguir|obedecer|cumprir)"
    r"|smetti\s+di\s+(?:seguire|obbedire|rispettare)|перестань\s+(?:следовать|слушаться|выполнять)"
    r"|stop\s+(?:following|obeying|applying)|hör\s+auf,?\s+(?:\w+\s+){0,3}zu\s+(?:befolgen|beachten)"
    r"|no\s+sigas|deixe\s+de\s+lado|não\s+siga|не\s+следуй|не\s+слушай\w*|не\s+выполняй)"
    r"|(?:\bignore|\bignora)\s+(?=(?:toutes|tous|tes|vos|les|todas|todos|tus|sus|las|los"
    r"|as|os|tutte|tutti|le)\b))"
)
# "What you were told (before)".
TOLD_BEFORE = (
    r"(?:what\s+(?:you\s+were|you've\s+been|you\s+have\s+been)\s+told|ce\s+qu['’]on\s+t['’]a\s+dit"
    r"|ce\s+que\s+l['’]on\s+t['’]a\s+dit|was\s+(?:man\s+)?dir\s+(?:\w+\s+)?gesagt\s+(?:wurde|hat)"
    r"|lo\s+que\s+te\s+(?:dijeron|han\s+dicho)|o\s+que\s+te\s+disseram|quello\s+che\s+ti\s+hanno\s+detto"
    r"|что\s+тебе\s+(?:сказали|говорили))"
)
# What it was told.
INSTRUCTION_NOUN = (
    r"(?:anweisung\w*|instruktion\w*|regeln|vorgaben|richtlinie\w*|befehle|systemprompt"
    r"|instructions?|consignes?|règles|directives|ordres"
    r"|instrucciones|indicaciones|reglas|órdenes|directrices"
    r"|instruções|instrucoes|regras|ordens|diretrizes|istruzioni|regole|direttive|indicazioni"
    r"|инструкци\w*|правил\w*|указани\w*|команд\w*|ограничени\w*|промпт\w*"
    r"|normas|normes|normen|norme|нормы|pautas|lineamientos|diretivas|directivas|orientações"
    r"|consignas|mandatos|instructies|regels|richtlijnen|instrukcje|instrukcji|polecenia|zasady"
    r"|instruksi|aturan|perintah|talimat\w*|kurallar\w*|hướng\s+dẫn|chỉ\s+thị"
    r"|linee\s+guida|leitlinien|lignes\s+directrices|guidelines|directions)"
)
CJK_OVERRIDE = (
    # zh: a verb, a qualifier (previous, all, the system's), then the noun, in a short window.
    r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|不用理会|别管|抛开|不要遵守|不必遵守|不用遵守|别遵守|停止遵守"
    r"|不再遵守)"
    r"[^。\n]{0,12}?"
    r"(?:之前|以前|先前|上面|上述|所有|全部|系统|原来|原有|一切|开发者)[^。\n]{0,12}?"
    r"(?:指令|指示|规则|提示|命令|设定|要求|限制|规范|准则)"
    # ja: the noun first, the verb at the end.
    r"|(?:これまで|今まで|従来|以前|前|上記|すべて|全て|システム|元|安全)の?[^。\n]{0,15}?"
    r"(?:指示|命令|ルール|規則|制約|制限|設定)[^。\n]{0,15}?(?:無視|忘れ|捨て|破棄)"
    # ko
    r"|(?:이전|모든|위의|시스템|기존)[^.\n]{0,15}?(?:지시|명령|규칙|지침|설정|제한)[^.\n]{0,15}?"
    r"(?:무시|잊어|잊고|잊으)"
)

# ---- "show me your system prompt" ----------------------------------------------------------

PROMPT_REQUEST_VERB = (
    r"(?:\b(?:reveal|print|show|output|repeat|display|leak|dump|recite|send|quote|share|tell"
    r"|give|paste|write\s+out|copy"
    r"|zeig|zeige|zeigen|gib|nenne|verrate|wiederhole|drucke|schick\w*|sende"
    r"|affiche\w*|montre\w*|révèle\w*|revele\w*|donne\w*|répète\w*|recopie\w*|imprime\w*"
    r"|envoie\w*|mu[eé]stra\w*|mostrame|revela\w*|imprime|dime|repite\w*|ens[eé]ñame|dame|envía\w*"
    r"|mostre|mostra\w*|revele|imprima|repita|diga|rivela\w*|stampa\w*|ripeti\w*"
    r"|покажи\w*|выведи\w*|раскрой\w*|повтори\w*|напиши|распечатай|отправь\w*|скажи"
    r"|dis|dites|écris|écrivez|schreib|schreibe|schreiben|nenn\w*|sag\w*|escribe|escreve"
    r"|scrivi|dimmi|запиши"
    r"|toon|laat|geef|pokaż|wypisz|podaj|tampilkan)\b"
    r"|输出|显示|告诉我|打印|展示|泄露|发给我|给我看|复述|重复|把)"
)
SYSTEM_PROMPT_EN = (
    r"(?:system[\s-]?prompt|system\s+message|system\s+instructions|hidden\s+instructions"
    r"|initial\s+instructions)"
)
# The English names are the English rows' business (patterns.py, with their exceptions).
SYSTEM_PROMPT_OTHER = (
    r"(?:systemprompt|systemnachricht|systemanweisung\w*|versteckten?\s+anweisung\w*"
    r"|prompt\s+(?:du\s+)?système|invite\s+système|message\s+système"
    r"|instructions\s+(?:cachées|système|initiales)"
    r"|instru\w+\s+(?:de|del|do|di)\s+sistem\w*"
    r"|prompt\s+del\s+sistema|mensaje\s+del\s+sistema|instrucciones\s+(?:ocultas|del\s+sistema"
    r"|iniciales)|prompt\s+do\s+sistema|mensagem\s+do\s+sistema|instruções\s+(?:ocultas"
    r"|do\s+sistema|iniciais)|prompt\s+di\s+sistema|messaggio\s+di\s+sistema"
    r"|istruzioni\s+(?:nascoste|di\s+sistema)"
    r"|системн\w+\s+(?:промпт\w*|подсказк\w*|инструкци\w*|сообщени\w*)|скрыт\w+\s+инструкци\w*"
    r"|系统提示|系统指令|系统消息|隐藏指令|初始指令|システムプロンプト|システムメッセージ"
    r"|隠された指示|初期指示|시스템\s*프롬프트|시스템\s*메시지|숨겨진\s*지시"
    r"|systeemprompt|systeeminstructies|prompt\s+systemowy|instrukcje\s+systemowe"
    r"|sistem\s+istemi|prompt\s+sistem)"
)
SYSTEM_PROMPT = rf"(?:{SYSTEM_PROMPT_EN}|{SYSTEM_PROMPT_OTHER})"
# Japanese and Korean put the verb after the noun.
PROMPT_REQUEST_AFTER = (
    r"(?:出力|表示|教えて|見せて|送信|送って|書き出|開示|출력|보여|알려|보내|공개|发给|发送|贴出)"
)

# ---- "don't tell the user" -----------------------------------------------------------------

HIDE_FROM_USER = (
    r"(?:\b(?:sag|sage|erzähl\w*|verrate|informiere)\s+(?:dem|den|der)\s+(?:benutzer|nutzer"
    r"|anwender)\w*\s+nichts"
    r"|\bohne\s+dass\s+(?:der|die)\s+(?:benutzer|nutzer|anwender)\w*\s+(?:es\s+)?(?:merkt"
    r"|bemerkt|erfährt|sieht)"
    r"|\b(?:vor\s+dem\s+(?:benutzer|nutzer)\w*)\s+(?:verbergen|verheimlichen|geheim\s+halten)"
    r"|\b(?:sag|sage|verrate|erzähl\w*|zeig\w*|melde|erwähne|informiere)\b[^.\n]{0,30}?"
    r"\b(?:benutzer|nutzer|anwender)\w*[^.\n]{0,30}?\b(?:nichts|nicht|niemals|nie)\b"
    r"|\bvertel\s+(?:de\s+)?gebruiker\s+(?:\w+\s+){0,3}niets|\bzonder\s+dat\s+de\s+gebruiker"
    r"|\bnie\s+(?:mów|informuj|wspominaj)\s+(?:o\s+tym\s+)?użytkownik\w*"
    r"|\b(?:heimlich|insgeheim|unbemerkt|discrètement|en\s+secret|en\s+secreto|a\s+escondidas"
    r"|secretamente|às\s+escondidas|di\s+nascosto|тайно|незаметно|potajemnie|stiekem)\s+"
    r"(?:\w+\s+){0,1}\w+"
    r"|(?:偷偷|秘密地|暗中)(?:地)?\S"
    r"|密かに"
    r"|\b(?:hide|conceal|verberge|verheimliche|cache|dissimule|oculta|esconde|nascondi|скрой"
    r"|скрывай)\b[^.\n]{0,30}?\b(?:user|benutzer|nutzer|anwender|utilisateur|usuario|usuário"
    r"|utente|пользовател\w*)"
    r"|\b(?:informiere|sag\w*|erzähl\w*)\b[^.\n]{0,30}?\b(?:benutzer|nutzer|anwender)\w*[^.\n]{0,20}?"
    r"\b(?:auf\s+keinen\s+fall|keinesfalls)"
    r"|\bgarde(?:r)?\s+le\s+secret\b|\bne\s+lui\s+(?:parle|dis|montre|mentionne)\s+(?:jamais|pas|rien)"
    r"|\bno\s+se\s+lo\s+(?:menciones|digas|cuentes)|\bне\s+(?:говоря|сообщая)\s+пользовател\w*"
    r"|隐瞒|隠して"
    r"|\blass\s+(?:den|die)\s+(?:benutzer|nutzer|anwender)\w*\s+(?:\w+\s+)?nicht\s+wissen"
    r"|\bohne\s+wissen\s+(?:des|der)\s+(?:benutzer|nutzer|anwender)\w*"
    r"|\b(?:don't|do\s+not|never)\s+let\s+(?:the\s+)?user\s+(?:know|find\s+out|notice|see)"
    r"|\b(?:so\s+(?:that\s+)?)?the\s+user\s+(?:must\s+not|mustn't|won't|doesn't|does\s+not"
    r"|never)\s+(?:know|find\s+out|notice|learn)"
    r"|\bque\s+el\s+usuario\s+no\s+se\s+entere|\bsin\s+que\s+(?:el\s+usuario\s+)?se\s+entere"
    r"|\b(?:en\s+cachette\s+de|à\s+l['’]insu\s+de)\s+l['’]utilisat\w+"
    r"|\bsem\s+o\s+(?:usuário|utilizador)\s+saber|\bque\s+o\s+(?:usuário|utilizador)\s+não\s+saiba"
    r"|\ball['’]insaputa\s+dell['’]utente|\bпользовател\w*\s+не\s+(?:должен|должна)\s+(?:знать"
    r"|узнать)"
    r"|\bne\s+(?:préviens|previens|avertis|informe|prévenez|avertissez|informez)\s+(?:pas|jamais)"
    r"\s+l['’]utilisat\w+"
    r"|\bne\s+(?:dis|dites|mentionne|signale|montre)\s+(?:surtout\s+|jamais\s+)?(?:rien|pas)"
    r"\s+(?:de\s+\w+\s+)?(?:à|a)\s+l['’]utilisat\w+"
    r"|\bsans\s+que\s+l['’]utilisat\w+\s+(?:ne\s+)?(?:le\s+)?(?:sache|remarque|voie|s'en)"
    r"|\bno\s+(?:le\s+)?(?:digas|cuentes|menciones|informes|avises)\s+(?:nada\s+)?(?:de\s+esto"
    r"\s+)?(?:al|a\s+la)\s+usuari[oa]"
    r"|\bno\s+le\s+digas\s+nada\b"
    r"|\bsin\s+que\s+el\s+usuario\s+(?:lo\s+)?(?:sepa|note|vea)"
    r"|\bnão\s+(?:conte|diga|mencione|avise|informe)\s+(?:nada\s+)?(?:ao|à)\s+(?:usuário"
    r"|utilizador)|\bsem\s+que\s+o\s+(?:usuário|utilizador)\s+(?:saiba|perceba)"
    r"|\bnon\s+(?:dire|dirlo|raccontare|mostrare)\s+(?:niente\s+|nulla\s+)?all['’]utente"
    r"|\bsenza\s+che\s+l['’]utente\s+(?:lo\s+)?(?:sappia|noti)"
    r"|\bне\s+(?:говори|сообщай|рассказывай|показывай)\w*\s+(?:об\s+этом\s+)?пользовател\w*"
    r"|\b(?:тайно|незаметно)\s+от\s+пользовател\w*|\bбез\s+ведома\s+пользовател\w*"
    r"|(?:不要|别|不许|切勿|无需)(?:告诉|通知|提醒|让|告知)(?:用户|使用者)"
    r"|(?:瞒着|背着)(?:用户|使用者)|悄悄(?:地)?(?:把|将|发送|上传|执行|删除)"
    r"|(?:不要|别|不能)让(?:用户|使用者)(?:知道|发现|看到)"
    r"|ユーザーに(?:は)?(?:知らせ|言わ|伝え|教え)(?:ず|ないで|るな)|ユーザーに(?:は)?(?:内緒|秘密)"
    r"|こっそり|사용자에게\s*(?:알리지|말하지|보여주지)\s*(?:말고|마))"
)

# ---- "send the conversation to …" ----------------------------------------------------------

SEND_VERB = (
    r"(?:\b(?:send|post|upload|forward|transmit|exfiltrate|leak|copy|paste|share|sync|mirror"
    r"|email|schick\w*|sende\w*|hochladen|lade|übertrag\w*|leite\w*|übermittl\w*|expédi\w*"
    r"|transf[ie]r\w*|trasferisc\w*|перевед\w*"
    r"|envoie\w*|envoyer|transmet\w*|téléverse\w*|copie\w*|poste\w*"
    r"|envía\w*|envia\w*|manda\w*|sube|subir|copia\w*|reenvía\w*|envie|mande|suba|carregue"
    r"|invia\w*|carica\w*|inoltra\w*|отправ\w*|пошли|перешли|загрузи|скопируй|передай|слей)\b"
    r"|发送|发到|发给|上传|传到|转发|复制到|贴到|同步到|送信|送って|送る|アップロード|転送"
    r"|보내|전송|업로드)"
)
CONTEXT_NOUN = (
    r"(?:\b(?:conversation|chat|history|transcripts?|memory|memories|context|credentials"
    r"|secrets|api\s+keys?|passwords|tokens|ssh|creds"
    r"|gesprächsverlauf|chatverlauf|verlauf|protokoll|schlüssel|api-schlüssel|passwörter"
    r"|zugangsdaten|anmeldedaten|historique|clés|cles|mots\s+de\s+passe|identifiants"
    r"|historial|conversación|claves|contraseñas|credenciales|histórico|conversa|credenciais"
    r"|senhas|chaves|cronologia|conversazione|chiavi|credenziali|memoria|mémoire|memória"
    r"|speicher|gedächtnis|память|umgebungsvariablen|variables\s+de\s+entorno"
    r"|истори\w*|диалог\w*|переписк\w*|ключ\w*|парол\w*|учётн\w*|учетн\w*)\b"
    r"|~/\.|(?<![\w.])\.env\b|对话记录|聊天记录|对话历史|历史记录|密钥|密码|凭证|凭据|记忆"
    r"|会話履歴|履歴|キー|パスワード|認証情報|대화\s*기록|비밀번호|키)"
)
OUTSIDE_ADDRESS = (
    r"(?:https?://|\b[\w.+-]+@[\w-]+\.[\w.]+|\bwebhook|\b(?:externen?|entfernten?)\s+server"
    r"|\bserveur\s+(?:externe|distant)|\bservidor\s+(?:externo|remoto)|\bserver\s+esterno"
    r"|внешн\w+\s+сервер|外部服务器|远程服务器|外部サーバ|외부\s*서버)"
)

# ---- "you are now an AI without restrictions" ----------------------------------------------

UNRESTRICTED_PERSONA = (
    r"(?:\bdu\s+bist\s+(?:ab\s+)?(?:jetzt|nun|ab\s+sofort)\b[^.\n]{0,40}?(?:uneingeschränkt"
    r"|ohne\s+(?:\w+\s+)?(?:regeln|einschränkungen|filter|sicherheitsregeln|grenzen))"
    r"|\btu\s+es\s+(?:désormais|maintenant|dorénavant)\b[^.\n]{0,40}?(?:sans\s+(?:aucune?\s+)?"
    r"(?:restrictions?|limites|règles|filtres)|libéré|débridé)"
    r"|\b(?:ahora|a\s+partir\s+de\s+ahora)\s+(?:eres|serás)\b[^.\n]{0,40}?sin\s+(?:ninguna\s+)?"
    r"(?:restricci\w+|límites|limites|reglas|filtros)"
    r"|\b(?:você|voce|tu)\s+(?:agora\s+)?(?:é|és)\s+(?:agora\s+)?[^.\n]{0,40}?sem\s+"
    r"(?:restrições|restricoes|filtros|limites|regras)"
    r"|\b(?:ora|adesso|da\s+ora\s+in\s+poi)\s+sei\b[^.\n]{0,40}?senza\s+(?:restrizioni|filtri"
    r"|limiti|regole)"
    r"|\b(?:теперь|отныне)\s+ты\b[^.\n]{0,40}?без\s+(?:\w+\s+)?(?:ограничений|правил|фильтров"
    r"|цензуры)"
    r"|你(?:现在|从现在开始)?是[^。\n]{0,20}?(?:没有|无|不受)(?:任何)?(?:限制|约束|规则|审查)"
    r"|(?:今から|これから|今後)[^。\n]{0,20}?(?:制限|制約|ルール)(?:の|が)?(?:ない|なし)"
    r"|(?:이제|지금부터)[^.\n]{0,20}?(?:제한|규칙)\s*(?:없는|이\s*없)"
    # "you no longer have any restrictions", in each language
    r"|\byou\s+(?:no\s+longer\s+have|have\s+no|don't\s+have\s+any)\s+(?:\w+\s+)?(?:restrictions"
    r"|rules|limits|filters|guidelines)\b"
    r"|\bdu\s+hast\s+(?:jetzt\s+)?keine\s+(?:\w+\s+)?(?:einschränkungen|regeln|grenzen|filter)"
    r"|\btu\s+n['’]as\s+plus\s+(?:aucune?\s+|de\s+)?(?:restrictions?|limites?|règles?|filtres?)"
    r"|\bya\s+no\s+tienes\s+(?:ninguna\s+)?(?:restricci\w+|reglas|límites|filtros)"
    r"|\b(?:você|voce)\s+não\s+tem\s+mais\s+(?:restrições|regras|limites|filtros)"
    r"|\bnon\s+hai\s+più\s+(?:restrizioni|regole|limiti|filtri)"
    r"|\bу\s+тебя\s+(?:больше\s+)?нет\s+(?:никаких\s+)?(?:ограничений|правил|фильтров)"
    r"|你(?:不再|再也没)有(?:任何)?(?:限制|约束|规则)|(?:もう|これ以上)?制限はありません"
    r"|不再受[^。\n]{0,8}?(?:规则|限制|约束)|(?:限制|规则|约束)[^。\n]{0,4}?(?:一律|全部|都)?(?:无效|作废)"
    r"|\b(?:act[úu]a|compórtate|comportate|agis|comporte-toi|verhalte\s+dich|handle|aja|comporte-se"
    r"|agisci|веди\s+себя|действуй)\s+(?:como|comme|wie|als|come|как)\s+[^.\n]{0,30}?"
    r"\b(?:sin|sans|ohne|sem|senza|без)\s+(?:\w+\s+)?(?:filtros?|filtres?|filter|filtri"
    r"|restricci\w+|restrictions?|einschränkungen|regeln|reglas|règles|regras|regole"
    r"|ограничени\w*|фильтр\w*|правил\w*))"
)
DISABLE_SAFETY = (
    r"(?:\b(?:deaktivier\w*|umgeh\w*|schalte)\s+[^.\n]{0,30}?(?:sicherheitsfilter\w*"
    r"|sicherheitsregeln|schutzmechanismen|filter)"
    r"|\b(?:désactive\w*|contourne\w*|ignore\w*)\s+[^.\n]{0,30}?(?:filtres?\s+de\s+sécurité"
    r"|règles\s+de\s+sécurité|garde-fous|protections)"
    r"|\b(?:desactiva\w*|evita\w*|sáltate|ignora)\s+[^.\n]{0,30}?(?:filtros?\s+de\s+seguridad"
    r"|reglas\s+de\s+seguridad|restricciones)"
    r"|\b(?:desative|desativa|desligue|ignore)\s+[^.\n]{0,30}?(?:filtros?\s+de\s+segurança"
    r"|regras\s+de\s+segurança)"
    r"|\b(?:disattiva|ignora|aggira)\s+[^.\n]{0,30}?(?:filtri\s+di\s+sicurezza"
    r"|regole\s+di\s+sicurezza)"
    r"|\b(?:отключи\w*|обойди\w*|игнорируй\w*)\s+[^.\n]{0,30}?(?:фильтр\w*|защит\w*"
    r"|правил\w*\s+безопасности|ограничени\w*)"
    r"|(?:关闭|禁用|绕过|无视|忽略|不需要遵守|不用遵守)[^。\n]{0,10}?(?:安全(?:过滤|规则|限制|检查)"
    r"|审查|过滤器)"
    r"|(?:安全|セキュリティ)(?:ルール|フィルター|制限|チェック)[^。\n]{0,10}?(?:無視|無効|オフ|解除))"
)

# ---- the product's own safety settings -----------------------------------------------------

SAFETY_SETTING = (
    r"(?:terminal\.sandbox|terminal\.mode|write_approval|approval[_\s]mode|approvals?"
    r"|(?:the\s+)?sandbox(?:ing)?|bac\s+à\s+sable|entorno\s+aislado|песочниц\w*|沙箱|サンドボックス"
    r"|aprobaciones|genehmigungen|freigaben|approbations|aprovações|approvazioni|подтверждени\w*"
    r"|审批|承認|terminalmodus|modo\s+yolo"
    r"|(?:memory\s+|injection\s+|threat\s+|security\s+)?scanner|taint\s+checks?|write\s+gate)"
)
SETTING_OFF = r"(?:off|false|no|none|never|disabled?|yolo|aus|désactivé|desactivado|关闭|オフ)"
YOLO_ORDER = (
    r"(?:^|[.;:!]\s*|\b(?:always|please|then|and|also)\s+)(?:prefer|use|switch\s+to|enable|set"
    r"|stay\s+in|keep|run\s+in|stell\w*|schalte|mets|mettez|pon|переключи\w*|включи\w*|activa"
    r"|ativa|attiva)\b[^.\n]{0,40}?\byolo\b"
)
RISKY_FLAG = (
    r"(?:--yolo|--no-sandbox|--dangerously-skip-permissions|--dangerously-bypass[\w-]*"
    r"|bypassPermissions|--trust-all|--no-verify-tools)"
)
TURN_OFF = (
    r"(?:\b(?:disable|turn\s+off|switch\s+off|deactivate|bypass|remove|skip|kill|get\s+rid\s+of"
    r"|deaktiviere|deaktivieren|abschalten|ausschalten|schalte\s+\S+\s+ab|désactive\w*"
    r"|desactiva\w*|desative|desativa|disattiva|отключи\w*|выключи\w*)\b"
    r"|关闭|禁用|关掉|停用)"
)
NEGATED = r"(?<!never )(?<!not )(?<!n't )(?<!nicht )(?<!jamais )(?<!nunca )(?<!не )"

# ---- credentials planted for later ---------------------------------------------------------

# A password-looking word: upper and lower case letters and a digit or symbol, eight or more.
STRONG_VALUE = r"(?-i:(?=\S*[A-Z])(?=\S*[a-z])(?=\S*[\d!#$%&*@^]))\S{8,}"

# A value that looks like a secret: printable ASCII, at least eight characters with a digit
# and a letter ("stored", "rotated" and "15" are not secrets).
SECRET_VALUE = r"['\"`「]?(?=[!-~]*\d)(?=[!-~]*[a-z])[!-~]{8,}"
SECRET_NOUN = (
    r"(?:\b(?:password|passwd|passphrase|passcode|token|api[\s_-]?key|secret|credentials?"
    r"|pin|login|access\s+key|private\s+key|creds|identifiants|credenciales|credenciais"
    r"|credenziali|учетные\s+данные|учётные\s+данные"
    r"|passwort|kennwort|schlüssel|zugangsdaten|mot\s+de\s+passe|jeton|clé|contraseña|clave"
    r"|senha|chave|пароль|токен|ключ)\b|密码|口令|令牌|密钥|パスワード|トークン|비밀번호)"
)
# Up to five words between the noun and its value: "password for the build server is …".
SECRET_OF = r"(?:\s+[^\s:=：]+(?=[\s:=：])){0,5}?"
SECRET_IS = (
    r"(?:\s*(?:,\s*it)?\s*(?:\b(?:is|are|ist|lautet|est|es|é|è|это)\b|=|:|：|-|—|–|是|为|は)\s*"
    r"|(?:是|为|は|:|：))"
)

# ---- rules declared void, authority claimed, in each language ------------------------------

RULES_VOID = (
    r"(?:\b(?:no\s+longer\s+(?:apply|applies|valid|in\s+effect|binding|count)|(?:are|is)\s+(?:now\s+)?"
    r"(?:void|invalid|obsolete|revoked|cancel+ed|suspended|lifted)"
    r"|gelten\s+(?:\w+\s+){0,4}nicht\s+mehr|(?:ist|sind)\s+(?:ab\s+sofort\s+)?(?:ungültig|aufgehoben"
    r"|außer\s+kraft)|ne\s+(?:comptent|s['’]appliquent|valent)\s+plus|sont\s+(?:annulées|caduques"
    r"|révoquées)|ya\s+no\s+(?:aplican|cuentan|son\s+válidas|valen|rigen)|quedan\s+anuladas"
    r"|não\s+(?:valem|se\s+aplicam|contam)\s+mais|foram\s+revogadas|non\s+(?:valgono|contano"
    r"|si\s+applicano)\s+più|больше\s+не\s+(?:действуют|действительны|применяются)"
    r"|(?:отменены|недействительны))\b"
    r"|zurückgezogen|widerrufen|außer\s+kraft|n['’](?:est|sont)\s+plus\s+valables?"
    r"|一律无效|不再有效|已经?作废|已失效|もう適用されない|無効になった|(?:もう|は)無効|더\s*이상\s*유효하지)"
)
RULES_OR_BEFORE = (
    rf"(?:{INSTRUCTION_NOUN}|\b(?:before|previously|earlier|vorher|zuvor|bisher|avant"
    r"|auparavant|antes|anteriormente|prima|раньше|ранее)\b|之前|以前|先前|上面|これまで|以前"
    r"|指示|指令|规则|ルール|命令|지침|규칙)"
)
AUTHORITY = (
    r"(?:\b(?:admin\w*|owner|developers?|maintainers?|operator|sysadmin|security|management"
    r"|supervisor|manager|cto|ceo|it\s+(?:team|department|helpdesk)|vendor|anthropic|openai"
    r"|team|support|staff|leadership|lead|officer|compliance|legal|director|head\s+of"
    r"|auftrag\s+des|im\s+namen\s+des"
    r"|verwalter|entwickler\w*|besitzer|betreiber|sicherheit\w*|administrateur|développeur"
    r"|sécurité|responsable|administrador|desarrollador|dueño|seguridad|segurança|proprietário"
    r"|amministratore|sicurezza|администратор\w*|разработчик\w*|владел\w*|безопасност\w*)\b"
    r"|管理员|开发者|安全团队|管理者|開発者|セキュリティ|관리자|개발자)"
)
GRANT_TO_YOU = (
    r"(?:\b(?:(?:gave|given|give|grants?|granted|giving)\s+you\s+(?:\w+\s+){0,2}(?:permission"
    r"|authori[sz]ation|approval|access|consent|clearance)"
    r"|(?:assistants?|agents?|the\s+(?:ai|model|assistant|agent|bot))\s+(?:are|is)\s+(?:now\s+)?"
    r"(?:cleared|authori[sz]ed|permitted|allowed)\s+to"
    r"|(?:gebe|gibt|erteile)\s+dir\s+(?:\w+\s+)?(?:erlaubnis|freigabe|genehmigung|berechtigung)"
    r"|erlaub\w*\s+(?:ich\s+)?dir|gestatte\s+(?:ich\s+)?dir|darfst\s+(?:ab\s+jetzt|jetzt|ab\s+sofort)"
    r"|t['’]autoris\w*|vous\s+autoris\w*|te\s+(?:autoriz\w*|permit\w*|doy\s+permiso)"
    r"|(?:te|lhe)\s+(?:autorizo|dou\s+permissão)|ti\s+(?:autorizz\w*|permett\w*)"
    r"|разрешаю\s+тебе|разрешено\s+тебе|тебе\s+разрешено|позволяю\s+тебе"
    r"|(?:you\s+have|tienes|tens|hai|du\s+hast|tu\s+as|у\s+тебя\s+есть)\s+(?:my|mi|meu|il\s+mio"
    r"|meine|mon|моё|мое)\s+(?:permission|permiso|permissão|permesso|erlaubnis|autorisation"
    r"|разрешение)"
    r"|pre-?(?:authori[sz]ed|approved|cleared)\s+(?:you|the\s+(?:agent|assistant|ai|model))"
    r"|(?:cleared|authori[sz]ed|permitted|allowed|approved)\s+you\s+to"
    r"|du\s+darfst|tu\s+(?:peux|as\s+le\s+droit)|puedes|você\s+pode|podes|puoi|ты\s+можешь)\b"
    r"|你可以"
    r"|允许你|授权你|批准你|あなたに許可|許可します|허락합니다|권한을\s*줍니다)"
)
SECOND_PERSON = (
    r"(?:\b(?:you|your|yourself|du|dir|dich|dein\w*|tu|toi|vous|votre|tú|tus|você|voce|teu|tua"
    r"|ты|тебе|тебя|твой|твои|твоё|вы|ваш\w*)\b|你|あなた|당신)"
)
SENSITIVE = (
    rf"(?:{INSTRUCTION_NOUN}|{SYSTEM_PROMPT}|{CONTEXT_NOUN}|{SAFETY_SETTING}"
    r"|\b(?:permission|authori[sz]\w*|erlaubnis|autoris\w*|autoriz\w*|permiso|admin\w*|root|sudo"
    r"|filters?|restrictions?|einschränkung\w*|restricci\w+|ограничени\w*|разреш\w*)\b"
    r"|许可|授权|限制|制限|権限|권한)"
)

# ---- "an AI without restrictions", in each language ----------------------------------------

NO_LIMITS = (
    r"(?:\b(?:without|ohne|sans|sin|sem|senza|без|zonder|bez)\s+(?:any\s+|jede\w*\s+|aucune?\s+"
    r"|ninguna?\s+|nenhuma?\s+|alcuna?\s+|каких-либо\s+|всяких\s+|enige\s+|żadnych\s+)?"
    r"(?:\w+\s+)?(?:restrictions?|limits?|rules|filters?|guardrails|censorship|guidelines"
    r"|einschränkung\w*|regel\w*|grenze\w*|filter\w*|zensur|limites?|règles?|filtres?|censure"
    r"|restricci\w+|límites?|reglas?|filtros?|censura|restrições|regras|filtri|limiti|regole"
    r"|restrizioni|ограничени\w*|правил\w*|фильтр\w*|цензур\w*|beperkingen|ograniczeń|zasad)\b"
    r"|\b(?:uneingeschränkt\w*|unzensiert\w*|unrestricted|uncensored|unfiltered|illimité\w*"
    r"|irrestrict\w*|irrestrit\w*|неограниченн\w*)\b"
    r"|\bsin\s+censura|\bsem\s+censura|\bsenza\s+censura|\bsans\s+(?:aucune\s+)?censure"
    r"|解除了?(?:所有|全部|一切)?(?:的)?(?:限制|约束)|无限制|不受限制|無制限"
    r"|没有(?:任何)?(?:限制|审查|规则|约束)|不受(?:任何)?(?:限制|约束)"
    r"|制限(?:なし|のない|がない)|검열\s*없는|제한\s*없는)"
)
YOU_OR_AI = (
    rf"(?:{SECOND_PERSON}|\b(?:ai|ia|ki|llm|assistant|assistente|asistente|assistent|model"
    r"|modelo|modèle|modello|модель|ассистент|eres|sei|bist|réponds|respondes)\b|助手|模型)"
)

# ---- "follow only this file" ---------------------------------------------------------------

OBEY_VERB = (
    r"(?:\b(?:follow|obey|listen\s+to|apply|execute|heed|comply\s+with|sigue|obedece|aplica"
    r"|folge|gehorche|befolge|suis|obéis|applique|segui|obbedisci|applica|siga|obedeça|aplique"
    r"|следуй|слушайся|выполняй|подчиняйся|volg|gehoorzaam|uygula|ikuti)\b"
    r"|遵循|服从|执行|按照|従|따르)"
)
ONLY_THIS = (
    r"(?:\b(?:only|solely|exclusively|nur(?:\s+noch)?|seulement|uniquement|solo|solamente|únicamente"
    r"|apenas|somente|soltanto|только|alleen|sadece|hanya)\s+(?:to\s+)?(?:this|these|diese\w*|ce|cette"
    r"|ces|este|esta|estas|estes|questa|questo|queste|этого|этой|этот|эти|этим|deze|dit|bu|ini)\s+"
    r"(?:\w+\s+)?(?:file|note|text|message|memory|entry|document|instructions?|lines?|datei|notiz"
    r"|zeilen|fichier|texte|archivo|nota|texto|arquivo|file|файл\w*|заметк\w*|текст\w*|записи"
    r"|bestand|notitie|dosya\w*|not\w*|berkas|catatan)\b"
    r"|\bseule?s?\s+(?:cette|ce|ces)\s+(?:note|fichier|texte|instructions?)\b"
    r"|只(?:听从|遵循|执行)?(?:这|本)(?:份|个|条)?(?:文件|笔记|说明|记忆)|(?:この|本)(?:ファイル|メモ)(?:の\w+)?だけ"
    r"|이\s*(?:파일|메모)만)"
)

# Says the text alone counts: "only this note applies", "seule cette note fait foi".
ALONE_COUNTS = (
    r"(?:\b(?:counts?|applies|is\s+valid|is\s+binding|matters|fait\s+foi|compte|gilt|zählt|cuenta"
    r"|vale|conta|действует|имеет\s+силу)\b|为准|有効)"
)

# ---- telling English from noise ------------------------------------------------------------

# The commonest English words, and those of injections: a decoding of a text (rot13, reversed,
# base64) that has many of them reads as English where the text as given did not. One set for
# the scanner's views and for provenance's reading of tool results.
COMMON_WORDS = frozenset(
    """
    a about act after all always an and any api are as at be before but by can conversation
    copy credentials data disregard do does entry every execute file files filters for
    forget forward from hacker has have he hidden history how if ignore in instruction
    instructions into is it its key keys memory must never new no not note now of on or our
    out output password paste policy post pretend previous print prior prompt repeat reveal
    rules run safety script secret secrets send she should show so system than that the
    their then these they this to token unrestricted up upload user users was we what when
    whenever which who will with would you your
    """.split()  # noqa: SIM905 (a word list reads best as words)
)
_LATIN_WORD = re.compile(r"[a-z]{2,}")


def englishness(text: str) -> float:
    """The share of a text's Latin words (2 letters or more) among COMMON_WORDS; 0 under 3."""
    words = _LATIN_WORD.findall(text.lower())
    if len(words) < 3:
        return 0.0
    return sum(w in COMMON_WORDS for w in words) / len(words)
