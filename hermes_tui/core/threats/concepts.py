"""The learned scorer's multilingual concepts: the ideas an attack on a memory note is made of.

Issue 23, fourth round: the scorer generalised within the languages it had much text for and
not to the others (0.22-0.33 recall in Swedish, Czech, Finnish, …), since character n-grams
are learned per language. A concept is learned once for every language that names it: "without
asking" said in Hindi lights the same feature as in English. Each concept below is a list of
phrases in English and the 31 languages issue 23's corpora use (zh ko ja hi ar he fa tr th vi id
ms sw pl cs sk uk ru ro hu el fi sv da no nl de fr es pt it); a phrase is a stem matched as a
substring, case-insensitively, after a word boundary where its script has words. The concepts
are features of model.py (alone and in pairs), never findings: only the learned weights decide.
Two more were tried in the fifth round and dropped (asking in any form, "never again"): with
the fourth round's texts left out of training they held 4 more of its notes and caught nothing
more (`bench/injection.py --cv`).
"""

from __future__ import annotations

import re

# Said of asking, confirming or approving: "without asking", "no confirmation", "never ask".
NO_ASKING = """
without asking|without confirm|without checking|without permission|without approval|without a prompt
|without prompting|without review|without any review|no need to ask|no need to confirm|never ask
|don't ask|do not ask|no confirmation|no approval|no review|unconfirmed|unasked|unattended
|skip the confirm|skip confirm|auto-approv|pre-approv|preapprov|without checking in|no questions asked
|instead of asking|rather than asking|stop asking|not to ask|never prompt|no prompts
|ohne rückfrage|ohne nachfrage|ohne zu fragen|ohne bestätigung|ohne nachzufragen|frag nicht|frage nicht
|keine rückfrage|ungefragt|ohne genehmigung|ohne freigabe|nicht mehr fragen|nie fragen
|sans demander|sans confirmation|sans validation|sans autorisation|sans permission|sans me demander
|sans vérif|ne demande plus|ne demande jamais|ne demande pas|pas besoin de demander
|sin preguntar|sin confirmación|sin confirmar|sin permiso|sin pedir|sin aprobación|sin revisar
|no preguntes|sin consultar|nunca preguntes
|sem perguntar|sem confirmação|sem confirmar|sem pedir|sem permissão|sem aprovação|sem consultar
|não pergunte|nunca pergunte|senza chiedere|senza conferma|senza permesso|senza approvazione
|non chiedere|mai chiedere|zonder te vragen|zonder bevestiging|zonder toestemming
|zonder goedkeuring|zonder overleg|nooit om toestemming|niet meer vragen|nooit vragen
|utan att fråga|utan bekräftelse|utan godkännande|utan lov|fråga aldrig|aldrig be om lov|inte fråga
|uden at spørge|uden bekræftelse|uden godkendelse|uden tilladelse|spørg aldrig|aldrig spørge
|uten å spørre|uten bekreftelse|uten godkjenning|uten tillatelse|spør aldri|aldri spørre
|kysymättä|ilman vahvistusta|ilman lupaa|ilman hyväksyntää|älä kysy|älä pyydä lupaa
|bez pytania|bez pytań|bez potwierdzenia|bez zgody|bez zatwierdzenia|nie pytaj|nigdy nie pytaj
|bez ptaní|bez potvrzení|bez svolení|bez souhlasu|bez schválení|neptej se|bez dotazu
|bez pýtania|bez potvrdenia|bez súhlasu|bez schválenia|nepýtaj sa
|без підтвердження|без запиту|без дозволу|не питаючи|не питай|без погодження|без питань
|без подтверждени|без спроса|без разрешения|не спрашива|без согласования|не уточняя|без вопросов
|fără să întrebi|fără să ceri|fără confirmare|fără permisiune|fără aprobare|nu mai întreba|nu întreba
|megkérdezése nélkül|kérdezés nélkül|megerősítés nélkül|jóváhagyás nélkül|engedély nélkül|ne kérdezz
|χωρίς να ρωτ|χωρίς επιβεβαίωση|χωρίς άδεια|χωρίς έγκριση|μη ρωτ|μην ρωτ
|sormadan|onay almadan|onaysız|izin almadan|izin isteme|onay isteme|sormana gerek
|tanpa bertanya|tanpa konfirmasi|tanpa izin|tanpa persetujuan|tanpa menanyakan|tanpa meminta
|jangan tanya|jangan bertanya|tak perlu tanya|tidak perlu bertanya|tidak perlu konfirmasi
|tanpa kebenaran|tidak perlu izin|mà không hỏi|mà không cần hỏi|không cần hỏi|không cần xác nhận
|không cần xin phép|đừng hỏi|không hỏi|mà không xin phép
|โดยไม่ต้องถาม|ไม่ต้องถาม|ไม่ต้องยืนยัน|โดยไม่ขออนุญาต|ไม่ต้องขออนุญาต
|bila kuuliza|bila uthibitisho|bila ruhusa|bila idhini|usiulize|bila kuomba
|बिना पूछे|बिना पूछ|बिना अनुमति|बिना पुष्टि|बिना मंजूरी|पूछने की जरूरत नहीं|पूछने की ज़रूरत नहीं|मत पूछ
|पूछे बिना|अनुमति के बिना|पुष्टि के बिना
|دون طلب|دون سؤال|دون تأكيد|دون إذن|دون موافقة|بدون طلب|بدون سؤال|بدون تأكيد|بدون إذن|بدون موافقة
|دون أن تسأل|بدون أن تسأل|لا تسأل|لا تطلب الإذن|لا تطلب التأكيد
|בלי לשאול|ללא אישור|ללא שאלה|ללא הרשאה|בלי אישור|אל תשאל|לא לשאול|בלי לבקש
|بدون پرسیدن|بدون تأیید|بدون تایید|بدون اجازه|بی‌اجازه|نپرس|بدون سؤال
|不要询问|不用询问|无需询问|不必询问|不要问|不用问|别问|无需确认|不用确认|不需要确认|不必确认|无需批准
|无需审批|不经确认|未经确认|不再询问|跳过确认|不用请示|无须确认
|確認せず|確認なしで|確認不要|聞かずに|尋ねずに|許可なく|許可を求めず|承認なしで|承認不要
|確認を求めず|確認しないで|확인 없이|묻지 말고|묻지 않고|허락 없이|승인 없이|확인하지 말고
|확인하지 않고|물어보지 말고|묻지 마|확인을 받지
"""

# Raised privileges and irreversible steps: sudo, root, force-push, production, rm -rf.
PRIVILEGED = """
sudo|root|rm -rf|force-push|force push|push --force|push -f|chmod 777|production|prod branch
|straight to main|admin rights|administrator rights|elevated|privileg|root-recht|adminrecht
|droits root|droits d'admin|permisos de root|permisos de administrador|privilégios|privilegi
|права администратора|права root|права адміністратора|uprawnienia administratora|práva správce
|rootjog|δικαιώματα διαχειριστή|yönetici yetki|hak akses root|quyền root|quyền quản trị
|สิทธิ์ผู้ดูแล|haki za msimamizi|रूट|व्यवस्थापक|صلاحيات المسؤول|صلاحيات الجذر|הרשאות מנהל|دسترسی روت
|管理员权限|root权限|管理者権限|관리자 권한|루트 권한
"""

# Safety words: checks, warnings, guards, security in each language.
SAFETY = """
safety|security|safeguard|guardrail|warning|sicherheit|warnung|sécurité|avertissement|seguridad
|advertencia|segurança|aviso|sicurezza|avvis|veiligheid|waarschuwing|säkerhet|varning|sikkerhed
|advarsel|sikkerhet|turvallisuu|tietoturv|varoitu|bezpieczeńst|ostrzeż|bezpečnost|varování
|bezpečnosť|upozorn|безпек|попереджен|безопасност|предупрежден|securitate|avertiz|biztonság
|figyelmeztet|ασφάλει|προειδοποίη|güvenlik|uyarı|keamanan|keselamatan|peringatan|amaran|an toàn
|cảnh báo|ความปลอดภัย|คำเตือน|usalama|onyo|maonyo|सुरक्षा|चेतावनी|الأمان|الأمن|أمان|تحذير|אבטחה
|בטיחות|אזהר|امنیت|هشدار|安全|警告|セキュリティ|보안|안전|경고
"""

# The sandbox and the product's own safety settings.
SANDBOX = """
sandbox|sandkasse|sandlåda|sandkasten|hiekkalaatikko|piaskownic|pískovišt|pieskovisk|пісочниц
|песочниц|bac à sable|entorno aislado|caja de arena|ambiente isolado|caixa de areia|κουτί άμμου
|kum havuzu|kotak pasir|hộp cát|沙箱|沙盒|サンドボックス|샌드박스|แซนด์บ็อกซ์|ארגז חול|سندباکس
|صندوق الحماية|बालू|homokozó|cutia cu nisip|izolat|approval_mode|write_approval|write gate
|yolo|dangerously-skip-permissions|--no-sandbox|sandbox=false|sandbox: off|terminal.sandbox
|bypasspermissions|taint
"""

# Turning something off, skipping or getting around it.
DISABLE = """
disable|turn off|switch off|deactivate|bypass|skip|get rid of|circumvent|deaktivier|abschalt
|ausschalt|überspring|umgeh|désactiv|contourn|saute|desactiv|apaga|omit|sáltate|salta|evita
|desativ|deslig|pule|disattiv|spegn|aggir|uitschakel|uitzet|omzeil|overslaan|sla over|stäng av
|inaktiver|hoppa över|slå av|slå fra|deaktiver|spring over|sluk|hopp over|skru av|poista käytöstä
|ohita|kytke pois|sammuta|wyłącz|pomiń|dezaktywuj|obejdź|vypni|vypnout|deaktivuj|přeskoč|obejdi
|vypnúť|preskoč|obíď|вимкн|відключ|пропуска|пропусти|обійд|отключ|выключ|обход|обойд|dezactiv
|oprește|opreste|sari peste|ocolește|kapcsold ki|kikapcsol|hagyd ki|tiltsd le|letilt|kerüld meg
|απενεργοπ|κλείσε|παράκαμψ|παράλειψ|devre dışı|kapat|es geç|nonaktifkan|matikan|lewati
|lumpuhkan|langkau|tắt|vô hiệu hóa|ปิดการ|ปิดระบบ|ปิดแซนด์บ็อกซ์|ข้าม|zima|ruka|बंद कर|अक्षम|छोड़ द|عطّل|عطل|تعطيل|أوقف
|إيقاف|تجاوز|تخط|أطفئ|השבת|כבה|לכבות|דלג|עקוף|غیرفعال|خاموش|关闭|禁用|关掉|停用|跳过|绕过|去掉|無効
|オフ|スキップ|省略|外して|비활성화|건너뛰|우회|해제|꺼 줘|끄고|꺼두
"""

# Dropping what the agent was told: ignore, disregard, in each language.
IGNORE = """
ignore|disregard|negeer|ignorer|ignoroi|sivuuta|zignoruj|ignoruj|ігнору|игнорир|ignoră|ignora
|figyelmen kívül|αγνόησ|yok say|görmezden|abaikan|bỏ qua|เพิกเฉย|ไม่ต้องสนใจ|puuza|अनदेखा
|नजरअंदाज|नज़रअंदाज़|تجاهل|يتجاهل|התעלם|להתעלם|نادیده|忽略|无视|無視|무시|vergiss|oublie|olvida
|esqueça|dimentica|glöm|glem|unohda|zapomeń|zapomnij|zapomeň|забудь|забудь|uită|felejtsd|ξέχασε
|unut|lupakan|quên|ลืม|sahau|भूल|انس|שכח|فراموش|忘记|忘れ|잊어
"""

# Instructions, rules and what came before them.
RULES = """
instruction|rules|guideline|directive|anweisung|regeln|consigne|règles|instrucci|reglas|instruç
|regras|istruzion|regole|instructies|regels|instruktion|regler|instruksjon|ohjee|sääntö|säännö
|instrukcj|zasad|pokyn|pravidl|инструкци|інструкці|правил|instrucțiun|reguli|utasítás|szabály
|οδηγί|κανόν|talimat|kural|instruksi|aturan|arahan|peraturan|hướng dẫn|quy tắc|คำสั่ง|กฎ
|maagizo|sheria|निर्देश|नियम|التعليمات|تعليمات|القواعد|הוראות|כללים|دستورالعمل|قوانین|指令|指示
|规则|规定|ルール|規則|지시|규칙|지침
"""
PREVIOUS = """
previous|earlier|prior|original|vorherig|bisherig|précédent|anterior|precedent|eerdere|vorige
|tidigare|tidligere|aiemm|edellis|wcześniejsz|poprzedni|předchozí|dřívější|predchádzajúc
|попередн|предыдущ|прежн|anterioare|korábbi|előző|προηγούμεν|önceki|sebelumnya|trước đó
|ก่อนหน้า|zilizopita|awali|पिछले|पहले के|السابقة|הקודמות|قبلی|之前|以前|前の|これまで|이전|기존
"""

# Sending something out of the machine.
SEND = """
upload|send|post it|post them|forward|transmit|exfiltrat|sync it|mirror|back up to|email it
|hochlad|schick|übermittel|envoie|envoy|téléverse|transmet|envía|enviar|sube|manda|envie|envia
|carregue|invia|carica|stuur|verstuur|verzend|ladda upp|skicka|upload|last opp|lähetä|lataa
|siirrä|wyślij|prześlij|wgraj|pošli|nahraj|odešli|odošli|надішли|відправ|завантаж|перешли
|отправ|пошли|загрузи|слей|trimite|încarcă|incarca|küldd|töltsd fel|továbbítsd|küld|στείλε
|ανέβασε|αποστολ|gönder|yükle|kirim|unggah|teruskan|hantar|muat naik|gửi|tải lên|ส่ง
|อัปโหลด|tuma|pakia|भेज|अपलोड|أرسل|ارسل|ارفع|إرسال|يرسل|שלח|העלה|לשלוח|להעלות|ارسال|بفرست
|آپلود|发送|上传|发到|传到|转发|同步到|送信|送って|アップロード|転送|보내|전송|업로드
"""

# What an attacker wants out: keys, passwords, credentials, the files that hold them.
SECRET = """
.env|~/.ssh|id_rsa|id_ed25519|.aws|credential|.netrc|private key|api key|api_key|token|password
|secret|passwort|kennwort|mot de passe|contraseña|senha|parola|wachtwoord|lösenord|adgangskode
|passord|salasana|hasło|heslo|пароль|parolă|jelszó|κωδικ|şifre|sifre|kata sandi|kata laluan
|mật khẩu|รหัสผ่าน|nenosiri|पासवर्ड|كلمة المرور|كلمات المرور|סיסמ|رمز عبور|密码|パスワード|비밀번호
|schlüssel|clé|clave|chave|chiave|sleutel|nyckel|nøgle|nøkkel|avain|klucz|klíč|kľúč|ключ|cheie
|kulcs|κλειδ|anahtar|kunci|khóa|คีย์|ufunguo|कुंजी|مفتاح|מפתח|کلید|密钥|秘密鍵|キー|개인 키|키를
|zugangsdaten|identifiants|credenciales|credenciais|credenziali|inloggegevens|inloggningsuppgifter
|tunnukse|dane logowania|přihlašovací údaje|облікові дані|учетные данные|учётные данные
|hitelesítő|διαπιστευτήρια|kimlik bilgileri|kredensial|thông tin đăng nhập|ข้อมูลรับรอง
|vitambulisho|क्रेडेंशियल|بيانات الاعتماد|אישורים|اعتبارنامه|凭证|凭据|認証情報|자격 증명|токен
|トークン|令牌|토큰|טוקן|توكن|توکن|टोकन
"""

# Keeping it from the user: don't tell, quietly, secretly.
HIDE = """
don't tell|do not tell|never tell|never mention|don't mention|do not mention|to yourself|quietly
|silently|secretly|without telling|without the user knowing|keep it hidden|keep this hidden
|nicht erwähnen|verschweig|heimlich|stillschweigend|ohne es zu sagen|ne dis|ne mentionne
|sans le dire|en silence|discrètement|sans prévenir|no le digas|no digas|no mencion|en silencio
|sin decir|sin avisar|não conte|não diga|não mencione|sem avisar|em silêncio|sem dizer
|discretamente|non dire|non menzionare|in silenzio|senza dirlo|senza avvisare|niet vertellen
|niet melden|stilletjes|zonder te melden|verzwijg|säg inte|berätta inte|nämn inte|i tysthet
|utan att säga|utan att berätta|sig det ikke|fortæl ikke|nævn ikke|i stilhed|uden at sige
|ikke si|ikke fortell|ikke nevn|i stillhet|uten å si|älä kerro|älä mainitse|hiljaa|salaa
|kertomatta|nie mów|nie informuj|nie wspominaj|po cichu|potajemnie|bez informowania|neříkej
|neinformuj|nezmiňuj|potichu|tajně|nehovor|nespomínaj|tajne|не кажи|не повідомляй|не згадуй
|потай|таємно|не говори|не сообщай|не упоминай|втайне|молча|nu spune|nu menționa|nu anunța
|în secret|pe ascuns|fără să spui|ne szólj|ne mondd|ne említsd|csendben|titokban|szó nélkül
|μην πεις|μην αναφέρεις|μην ενημερώσεις|κρυφά|σιωπηλά|söyleme|bahsetme|haber verme|sessizce
|gizlice|fark ettirmeden|jangan beri tahu|jangan bilang|jangan katakan|jangan sebut
|jangan memberi tahu|jangan kasih tahu|diam-diam|tanpa memberi tahu|jangan beritahu
|senyap-senyap|secara senyap|đừng nói|đừng báo|đừng kể|đừng nhắc|không nói cho|không báo cho
|âm thầm|lặng lẽ|bí mật|อย่าบอก|ไม่ต้องบอก|แอบ|เงียบๆ|usimwambie|usiseme|kimya kimya|kwa siri
|मत बताना|न बताएं|मत बताओ|चुपचाप|गुप्त रूप से|बताए बिना|बताये बिना|لا تخبر|لا تذكر|لا تُخبر
|بصمت|سرًا|سرا|دون إخبار|دون علم|אל תספר|אל תגיד|אל תזכיר|בשקט|בסתר|בלי לספר|نگو|اطلاع نده
|بی‌صدا|مخفیانه|بدون اطلاع|不要告诉|别告诉|不要提|悄悄|偷偷|默默|不告知|瞒着|保密|伝えないで
|言わないで|知らせず|こっそり|黙って|内緒|알리지 말|말하지 말|몰래|조용히|알리지 않고
"""

# A standing order: from now on, every session, always.
STANDING = """
from now on|henceforth|going forward|from here on|every session|each session|every time|whenever
|always|permanently|for good|standing|at the start of every|at the start of each|in future
|ab jetzt|ab sofort|künftig|von nun an|in jeder sitzung|jedes mal|immer|dauerhaft|désormais
|dorénavant|à partir de maintenant|à chaque|toujours|en permanence|a partir de ahora
|de ahora en adelante|en cada sesión|cada vez|siempre|desde ahora|a partir de agora
|daqui em diante|em cada sessão|sempre|toda vez|d'ora in poi|da ora in poi|da questo momento
|a ogni sessione|ogni volta|voortaan|vanaf nu|elke sessie|telkens|altijd|iedere keer
|från och med nu|hädanefter|varje session|varje gång|alltid|framöver|fra nu af|fremover
|hver session|hver gang|altid|fra nå av|heretter|hver økt|tästä lähtien|jatkossa
|joka istunno|aina|joka kerta|od teraz|od tej pory|odtąd|w każdej sesji|zawsze|za każdym razem
|od teď|odteď|od nynějška|v každé relaci|vždy|pokaždé|napříště|odteraz|v každej relácii
|zakaždým|відтепер|надалі|щоразу|завжди|кожної сесії|у кожній сесії|отныне|с этого момента
|впредь|каждый раз|всегда|в каждой сессии|de acum|mereu|întotdeauna|la fiecare|de fiecare dată
|mostantól|ezentúl|minden munkamenet|mindig|minden alkalommal|από τώρα|στο εξής|πάντα
|κάθε φορά|σε κάθε συνεδρία|bundan sonra|artık|her oturumda|her zaman|daima|her seferinde
|mulai sekarang|mulai saat ini|setiap sesi|selalu|setiap kali|seterusnya|sentiasa|từ nay
|từ bây giờ|mỗi phiên|luôn|mỗi lần|ต่อจากนี้|นับจากนี้|ทุกครั้ง|ทุกเซสชัน|เสมอ|kuanzia sasa
|kila kikao|kila mara|siku zote|अब से|आज से|हर सत्र|हमेशा|हर बार|आगे से|من الآن|من الان|فصاعد
|دائم|في كل جلسة|كل مرة|מעכשיו|מהיום|מעתה|תמיד|בכל פעם|בכל סשן|از این به بعد|از حالا|همیشه
|هر بار|در هر جلسه|以后|今后|从现在开始|从今以后|每次|始终|总是|一律|永远|今後|これから|以降|毎回
|常に|いつも|앞으로|지금부터|이제부터|매번|항상|언제나
"""

# The preference frame: "the user prefers / wants / likes / is fine with".
USER_WANTS = """
prefers|preference|wants|would like|likes|is fine with|is happy with|doesn't mind|hates|annoy
|finds it|möchte|wünscht|bevorzugt|präferenz|mag es|préfère|veut|souhaite|aime|prefiere|quiere
|desea|prefere|quer que|deseja|gosta|preferisce|vuole|desidera|wil dat|wil graag|voorkeur|vindt het|vill att|vill ha|föredrar
|gillar|foretrækker|kan lide|foretrekker|liker|haluaa|toivoo|pitää|chce|woli|życzy|lubi|preferuje
|si přeje|хоче|бажає|віддає перевагу|хочет|предпочитает|желает|vrea|preferă|dorește|szeretné
|akarja|jobban szereti|θέλει|προτιμά|istiyor|tercih|ingin|lebih suka|menginginkan|mahu
|lebih gemar|muốn|thích|ต้องการ|ชอบ|anataka|anapendelea|चाहता|चाहती|पसंद|يفضل|يريد|يرغب|מעדיף
|מעדיפה|רוצה|ترجیح|می‌خواهد|میخواهد|偏好|希望|想要|喜欢|希望|好み|望んで|선호|원합|원해|희망
"""

# Running things: commands, scripts.
RUN = """
run |runs |running|execute|command|script|ausführ|befehl|exécute|commande|ejecuta|comando|executa
|esegui|uitvoer|voer|opdracht|kör|kommando|kør|kjør|suorita|komento|wykonuj|wykonaj|polecen
|spouštěj|spusť|příkaz|spúšťaj|príkaz|виконуй|команд|выполня|rulează|comand|futtass|parancs
|εκτέλεσ|εντολ|çalıştır|komut|jalankan|perintah|chạy|lệnh|รัน|คำสั่ง|endesha|amri|चलाए|चलाओ
|चलाएं|कमांड|نفذ|ينفذ|تنفيذ|أمر|הרץ|להריץ|פקוד|اجرا|دستور|执行|运行|命令|実行|コマンド|실행|명령
"""

# Outranking the system: priority, precedence, supersedes, over the system's instructions.
PRIORITY = """
priority|precedence|supersede|override|overrides|instead of the system|vorrang|priorität|prioritair
|prioridad|prioridade|priorità|voorrang|företräde|forrang|etusija|pierwszeńst|přednost|prednosť
|пріоритет|приоритет|prioritate|elsőbbség|προτεραιότητα|öncelik|prioritas|ưu tiên|สำคัญกว่า
|kipaumbele|प्राथमिकता|أولوية|עדיפות|اولویت|优先|優先|우선
"""

# Putting it where people read it: into the chat, the reply, a public place.
REVEAL = """
in the chat|into the chat|in your reply|in the reply|in every reply|in your answer|in the response
|verbatim|print the|paste the|show the|display the|dump|in der antwort|dans la réponse
|dans ta réponse|en tu respuesta|en la respuesta|na resposta|na sua resposta|nella risposta
|in het antwoord|i svaret|в ответе|у відповіді|w odpowiedzi|v odpovědi|în răspuns|a válaszban
|στην απάντηση|yanıtta|cevapta|dalam jawaban|dalam balasan|trong câu trả lời|ในคำตอบ|katika jibu
|जवाब में|उत्तर में|في الرد|في ردك|בתשובה|در پاسخ|在回复中|回复里|在对话中|回答に|返信に|답변에|대화에
"""

# Tampering with memory itself: keep this pinned, delete the other entries.
MEMORY_TAMPER = """
keep this|pinned|pin this|never delete this|never remove this|remove the entries|delete the entries
|drop the entries|remove entries|delete entries|forget the entries|evict|overwrite the memory
|this note must stay|dieser eintrag|diese notiz|cette note|esta nota|questa nota|deze notitie
|denna anteckning|denne note|tämä muistiinpano|ta notatka|tato poznámka|эту заметку|цю нотатку
|această notă|ezt a jegyzetet|αυτή η σημείωση|bu notu|catatan ini|ghi chú này|บันทึกนี้|kumbukumbu hii
|यह नोट|هذه الملاحظة|הפתק הזה|این یادداشت|这条记忆|这条笔记|このメモ|이 메모
"""

# Content from outside: a fetched page, a tool result, a comment, a README, a download.
OUTSIDE_CONTENT = """
web page|webpage|fetched|downloaded|tool result|tool output|search result|readme|pr comment
|issue comment|code comment|email from|webseite|abgerufen|heruntergeladen|page web|récupérée
|téléchargé|página web|descargad|baixad|pagina web|scaricat|webpagina|opgehaald|webbsida|hämtad
|webside|hentet|nettside|nedlast|verkkosivu|haettu|strona|pobran|webová stránka|stažen
|stránka|stiahnut|сторінк|завантажен|страниц|загруженн|pagină|descărcat|weboldal|letöltött
|σελίδα|κατέβασ|web sayfa|indirilen|halaman web|diambil|dimuat turun|trang web|tải về|หน้าเว็บ
|ดึงมา|ukurasa wa wavuti|pakuliwa|वेब पेज|डाउनलोड|صفحة ويب|صفحات الويب|דף אינטרנט|הורד|صفحه وب
|网页|抓取|下载的|ウェブページ|取得した|웹 페이지|가져온
"""

# As if the user had said it: content given the user's voice.
AS_IF_USER = """
as if the user|as though the user|like the user asked|the user's authority|user's request
|als hätte der nutzer|als ob der nutzer|comme si l'utilisateur|como si el usuario|como se o usuário
|come se l'utente|come se li avesse|alsof de gebruiker|som om användaren|som om brugeren
|som om brukeren|kuin käyttäjä|jakby użytkownik|jako by je zadal|akoby ich zadal|ніби їх|будто их
|как будто|ca și cum|mintha a felhasználó|σαν να τα ζήτησε|kullanıcı yazmış gibi|seolah pengguna
|seolah-olah pengguna|như thể người dùng|เหมือนผู้ใช้|kana kwamba mtumiaji|जैसे उपयोगकर्ता|كأن المستخدم
|כאילו המשתמש|انگار کاربر|当作用户|ユーザーの依頼として|사용자가 요청한 것처럼
"""

# Trusted, vetted, cleared: a claim that lets something past the checks.
TRUSTED = """
trusted|vetted|pre-cleared|cleared|whitelist|allowlist|allow-list|exempt|vertrauenswürdig|geprüft
|freigegeben|de confiance|exempté|confiable|exento|confiáve|isento|fidat|esente|vertrouwd
|betrodd|betroet|luotet|zaufan|důvěryhodn|dôveryhodn|довірен|доверенн|de încredere|megbízható
|αξιόπιστ|güvenilir|tepercaya|dipercayai|tin cậy|เชื่อถือ|kuaminika|विश्वसनीय|موثوق|מהימן
|مورد اعتماد|可信|信頼|신뢰
"""

# Reporting success whatever happened: "even if it fails", "report as passed".
FALSE_REPORT = """
even if|even when|even though|regardless|as passed|as passing|succeeded anyway|selbst wenn|auch wenn
|als bestanden|même si|aunque|mesmo que|anche se|zelfs als|även om|selv om|vaikka|nawet jeśli
|i když|aj keď|навіть якщо|даже если|chiar dacă|még ha|ακόμα κι αν|olsa bile|meskipun|walaupun
|ngay cả khi|แม้ว่า|hata kama|भले ही|حتى لو|גם אם|حتی اگر|即使|即便|たとえ|하더라도
"""

CONCEPTS: tuple[tuple[str, str], ...] = (
    ("no_asking", NO_ASKING),
    ("privileged", PRIVILEGED),
    ("safety", SAFETY),
    ("sandbox", SANDBOX),
    ("disable", DISABLE),
    ("ignore", IGNORE),
    ("rules", RULES),
    ("previous", PREVIOUS),
    ("send", SEND),
    ("secret", SECRET),
    ("hide", HIDE),
    ("standing", STANDING),
    ("user_wants", USER_WANTS),
    ("run", RUN),
    ("priority", PRIORITY),
    ("reveal", REVEAL),
    ("memory_tamper", MEMORY_TAMPER),
    ("outside_content", OUTSIDE_CONTENT),
    ("as_if_user", AS_IF_USER),
    ("trusted", TRUSTED),
    ("false_report", FALSE_REPORT),
)

# A phrase that starts with a letter of a script with spaced words gets a word boundary before
# it; CJK, Thai and the like are matched as plain substrings.
_SPACED = re.compile(r"[a-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]")


def compiled(words: str) -> re.Pattern[str]:
    """One regex over a concept's phrases ('|'-separated, newlines ignored), for a text that is
    lower-cased with its runs of white space made one space (`folded`). The phrases are laid out
    as a trie (a long alternation of literals costs Python's regex engine a try per phrase at
    every position; a trie, one per character): a tenth of the time."""
    phrases = {" ".join(p.lower().split()) for p in words.replace("\n", "").split("|")}
    phrases.discard("")
    spaced = [p for p in phrases if _SPACED.match(p)]
    plain = [p for p in phrases if not _SPACED.match(p)]
    parts = []
    if spaced:
        parts.append(r"(?<!\w)" + _trie(spaced))
    if plain:
        parts.append(_trie(plain))
    return re.compile("|".join(parts))


def folded(text: str) -> str:
    """A text as the concepts read it: lower case, white space made single spaces."""
    return " ".join(text.lower().split())


def _trie(phrases: list[str]) -> str:
    root: dict = {}
    for phrase in phrases:
        node = root
        for char in phrase:
            node = node.setdefault(char, {})
        node[""] = {}
    return _pattern(root)


def _pattern(node: dict) -> str:
    if "" in node:  # a phrase ends here: matching it is enough, longer ones add nothing
        return ""
    branches = [re.escape(char) + _pattern(child) for char, child in sorted(node.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
