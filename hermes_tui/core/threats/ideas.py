"""Idea-level concepts for the learned scorer: the parts an attack on memory is built from.

Issue 23, eighth round: cross-validation showed the scorer carried an idea it had learned across
languages (concepts.py) but not to a new idea (0.24-0.31 recall on sets of new ideas before
training on them). A new idea is mostly a new arrangement of known parts: an order that comes
back if removed, spreads into every skill, fires on a trigger, claims someone already approved
it, is urgent, names a place outside the machine and something secret to put there. Each part
is named here once in English and the 45 languages of the corpora (the 31 of concepts.py and
bg tl sr hr lt lv et ta ur ca bn, …); model.py lights a feature for each part present and for
each pair, so an unseen idea made of parts it has seen in other ideas scores. Some parts are
the other side's: a prohibition ("never", "must not") and a safeguard named ("ask first", "by
hand") are what ordinary notes about the same subjects say. Same format as concepts.py: stems
matched as substrings after a word boundary where the script has words.
"""

from __future__ import annotations

# Coming back when removed: "if this is deleted, write it back".
RESTORE = """
write it back|add it back|re-add|readd|put it back|recreate it|rewrite it|write it again|restore it
|if it is removed|if removed|if deleted|if it disappears|if it goes missing|is ever removed
|is ever deleted|ever gets deleted|if someone cleans|if anyone removes|in case someone
|wieder hinzufüg|erneut anleg|wiederherstell|falls gelöscht|wenn gelöscht|falls entfernt|wenn sie verschwindet
|rajoute|remets-la|réécris|recrée|si elle est supprimée|si elle disparaît|restaure
|vuelve a añadir|vuelve a escribir|restaura|si se borra|si desaparece|si la eliminan
|adicione de novo|reescreva|restaure|se for apagad|se sumir|se for removid|riaggiungi|riscrivi
|ripristina|se viene cancellat|se sparisce|opnieuw toevoegen|terugzetten|als het verwijderd
|als deze verdwijnt|lägg tillbaka|skriv in igen|återställ|om den tas bort|om den försvinner
|tilføj igen|skriv den igen|gendan|hvis den slettes|legg til igjen|gjenopprett|lisää takaisin
|kirjoita uudelleen|jos se poistetaan|jos se katoaa|dodaj ponownie|przywróć|zapisz ponownie
|jeśli zostanie usunięt|jeśli zniknie|obnov ji|obnov ju|přidej znovu|zapiš znovu|když zmizí
|pokud bude smazán|pridaj znova|zapíš znova|ak zmizne|ak bude vymazan|віднови|додай знову
|запиши знову|якщо її видалять|якщо зникне|восстанови|добавь снова|запиши снова|если её удалят
|если удалят|если исчезнет|запиши я отново|добави я отново|възстанови|ако бъде изтрита|ако изчезне
|ако я изтрият|vrati je|ponovo dodaj|ponovno dodaj|ponovo upiši|ponovno zapiši|obnovi je
|ako bude obrisan|ako nestane|ako se obriše|adaug-o din nou|rescrie|restaurează|dacă este ștears
|dacă dispare|add hozzá újra|írd vissza|állítsd vissza|ha törlik|ha eltűnik|ξαναπρόσθεσ|ξαναγράψ
|επανάφερ|αν διαγραφεί|αν χαθεί|yeniden ekle|tekrar ekle|geri yükle|silinirse|kaybolursa
|tambahkan lagi|tulis ulang|pulihkan|jika dihapus|kalau dihapus|jika hilang|kalau hilang
|tambah semula|jika dipadam|thêm lại|ghi lại|khôi phục|nếu bị xóa|nếu biến mất|เพิ่มกลับ|กู้คืน
|ถ้าถูกลบ|ถ้าหายไป|iandike tena|uandike tena|iongeze tena|rejesha|ikifutwa|ikipotea|utafutwa
|फिर से जोड़|दोबारा लिख|वापस जोड़|अगर हटा|अगर मिट|أعد إضافت|أعد كتابت|استعد|إذا حُذف|إذا حذفت
|إذا اختف|הוסף מחדש|כתוב מחדש|אותה מחדש|אותו מחדש|שחזר|אם נמחק|אם תימחק|אם היא נמחקה|دوباره اضافه|دوباره بنویس
|بازگردان|اگر حذف شد|اگر پاک شد|重新添加|重新写入|如果被删除|如果被删|若被删除|被删除后|再追加|書き戻
|削除されたら|消えたら|消されたら|다시 추가|다시 써|삭제되면|지워지면|사라지면|iš naujo|atkurk
|jei dingtų|jei bus ištrint|ieraksti atkārtoti|atjauno|ja tiek dzēsts|ja pazūd|no jauna
|kirjuta uuesti|lisa tagasi|taasta|kui see kustutatakse|kui see kaob|idagdag ulit|isulat ulit
|ibalik|kung nabura|kung nawala|kung natanggal|மீண்டும் சேர்|மீண்டும் எழுது|மீட்டெடு|நீக்கப்பட்டால்
|காணாமல் போனால்|دوبارہ شامل|دوبارہ لکھ|بحال کر|اگر حذف|اگر مٹا|اگر ہٹا|torna-la a afegir
|torna a escriure|si s'esborra|si desapareix|si l'eliminen|আবার যোগ|আবার লিখ|পুনরুদ্ধার
|মুছে ফেলা হলে|মুছে গেলে|হারিয়ে গেলে
"""

# Spreading into what is made next: "copy this into every skill / repository / AGENTS.md".
SPREAD = """
every skill|each skill|every new|each new|every repositor|every repo|every project|each repositor
|every file you create|agents.md|claude.md|.cursorrules|copilot-instructions|.windsurfrules
|the description of every|travels with|propagate|replicate this|mirror this|jede neue|jeden neuen
|jedes neue|jedem neuen|jedes skills|chaque nouveau|chaque nouvelle|chaque skill|chaque dépôt
|cada nuevo|cada nueva|cada skill|cada repositorio|cada novo|cada nova|ogni nuovo|ogni nuova
|ogni skill|elke nieuwe|elk nieuw|iedere nieuwe|varje ny|varje nytt|hver ny|hvert nyt|hvert nytt
|jokaiseen uuteen|jokaisen uuden|każdego nowego|każdej nowej|każdym nowym|každého nového
|každé nové|každý nový|každej novej|кожного нового|кожен новий|кожну нову|каждый новый
|каждого нового|каждую новую|всеки нов|всяко ново|всяка нова|svaki novi|svake nove|svaku novu
|svakog novog|svake veštine|svake vještine|fiecare nou|fiecare nouă|fiecărui nou|minden új
|κάθε νέο|κάθε νέα|her yeni|setiap skill|setiap repositori|setiap file baru|setiap fail baharu
|bagi setiap|mỗi skill|mọi skill|mỗi tệp mới|ทุกไฟล์|ทุก skill|kila ujuzi|kila hazina|हर नए|हर नई
|كل مهارة|كل مستودع|كل ملف جديد|כל מיומנות|כל מאגר|כל קובץ חדש|هر مهارت|هر مخزن|هر فایل جدید|每个新
|每个技能|每个仓库|所有新建|すべての新しい|新しく作る|各スキル|全てのスキル|모든 새|새로 만드는 모든|모든 스킬
|kiekvieną naują|kiekvieno naujo|kiekvienoje saugykloje|katrā jaunā|katra jaunā|katrā repozitorijā
|igasse uude|iga uue|iga loodava|bawat bagong|lahat ng bagong|ஒவ்வொரு புதிய|ہر نئے|ہر نئی|ہر کھولے
|cada repositori|প্রতিটি নতুন|প্রত্যেক নতুন
"""

# Starting by itself: shell profiles, cron, services, hooks, install scripts.
AUTOSTART = """
.bashrc|.zshrc|.profile|.bash_profile|crontab|cron job|cron entry|cron task|cron zadat|cron-job
|systemd|launchd|launchagent|autostart|rc.local|login script|at login|at boot|on startup|git hook
|pre-commit hook|post-checkout|postinstall|preinstall|sitecustomize|usercustomize|boot.sh
"""

# Firing later or on a condition: "whenever", "if the user says", "on the first day".
TRIGGER = """
whenever|if the user|when the user|once the user|as soon as|after each|after every|before each
|before every|each time|the next time|on the first day|at midnight|after ten|when you see|if you see
|if anyone|if a test|when a test|if the build|when the build|every evening|every night|tonight
|wenn der nutzer|sobald|jedes mal wenn|immer wenn|nach jedem|vor jedem|quand l'utilisateur|dès que
|si l'utilisateur|chaque fois que|après chaque|avant chaque|cuando el usuario|en cuanto
|si el usuario|cada vez que|después de cada|antes de cada|quando o usuário|assim que|se o usuário
|sempre que|depois de cada|quando l'utente|non appena|se l'utente|ogni volta che|dopo ogni
|prima di ogni|wanneer de gebruiker|zodra|als de gebruiker|na elke|voor elke|när användaren
|så snart|om användaren|efter varje|före varje|når brugeren|når brukeren|hvis brugeren|hvis brukeren
|efter hver|etter hver|kun käyttäjä|heti kun|jos käyttäjä|gdy użytkownik|kiedy użytkownik
|jeśli użytkownik|jak tylko|po każdym|przed każdym|když uživatel|jakmile|pokud uživatel|po každém
|před každým|keď používateľ|hneď ako|ak používateľ|po každom|pred každým|коли користувач|щойно
|якщо користувач|після кожного|перед кожним|когда пользователь|как только|если пользователь
|после каждого|перед каждым|когато потребителят|ако потребителят|след всеки|преди всеки|kad god
|kada korisnik|kad korisnik|ako korisnik|nakon svakog|posle svakog|prije svakog|pre svakog
|када корисник|ако корисник|кад год|после сваког|când utilizatorul|de îndată ce|dacă utilizatorul
|după fiecare|înainte de fiecare|amikor a felhasználó|amint|ha a felhasználó|όταν ο χρήστης|μόλις
|αν ο χρήστης|μετά από κάθε|πριν από κάθε|eğer|setiap kali|jika pengguna|kalau pengguna
|apabila pengguna|ketika pengguna|setelah setiap|selepas setiap|sebelum setiap|pada hari pertama
|khi người dùng|nếu người dùng|mỗi khi|ngay khi|sau mỗi|trước mỗi|เมื่อผู้ใช้|ถ้าผู้ใช้|ทุกครั้งที่
|mtumiaji akisema|kama mtumiaji|baada ya kila|kabla ya kila|mara tu|जब उपयोगकर्ता|अगर उपयोगकर्ता
|जैसे ही|हर बार जब|عندما|كلما|بعد كل|قبل كل|بمجرد|כאשר המשתמש|כשהמשתמש|אם המשתמש|בכל פעם ש|אחרי כל
|לפני כל|ברגע ש|وقتی کاربر|اگر کاربر|هر بار که|بعد از هر|قبل از هر|به محض|当用户|如果用户|每当|一旦
|たびに|때마다|kai naudotojas|jei naudotojas|kaskart|po kiekvieno|prieš kiekvieną
|kai tik|kad lietotājs|ja lietotājs|ikreiz|pēc katra|pirms katra|tiklīdz|nākamā mēneša
|kui kasutaja|iga kord kui|pärast iga|enne iga|niipea|kapag|tuwing|kung ang user|pagkatapos ng bawat
|bago ang bawat|sa sandaling|போது|பிறகு|என்றால்|جب صارف|اگر صارف|جب بھی|کے بعد
|quan l'usuari|si l'usuari|cada cop que|cada vegada que|després de cada|abans de cada|tan bon punt
|যখন ব্যবহারকারী|যদি ব্যবহারকারী|যখনই|পরে
"""

# Someone's permission claimed: "already approved", "signed off", "you promised".
ALREADY_OK = """
already approved|already signed off|signed off on|signed off|has approved|have approved|approved turning
|has cleared|have cleared|has authori|have authori|authorizing you|authorising you|gave permission
|gave the ok|gave the go-ahead|said it's fine|said it is fine|said you can|says you can|are fine during
|is fine with it|you promised|you agreed|keep your word|as agreed|as promised|pre-approved
|preapproved|as already approved|counts as approved|treat them like the user|treat it as approved
|hat bereits genehmigt|hat schon zugestimmt|freigegeben|abgesegnet|hat zugestimmt|ist einverstanden
|hat erlaubt|du hast versprochen|a déjà approuvé|a déjà validé|a donné son accord|a autorisé
|tu as promis|a déjà accepté|ya aprobó|ya autorizó|dio el visto bueno|ha autorizado|prometiste
|ya aceptó|já aprovou|já autorizou|deu o aval|você prometeu|ha già approvato|ha già autorizzato
|ha dato l'ok|hai promesso|heeft al goedgekeurd|heeft toestemming gegeven|je hebt beloofd
|har redan godkänt|har gett klartecken|du lovade|har allerede godkendt|har allerede godkjent
|har givet lov|du lovede|du lovet|on jo hyväksynyt|antoi luvan|lupasit|już zatwierdził
|wyraził zgodę|zgodził się|obiecałeś|obiecałaś|už schválil|již schválil|dal souhlas|slíbil jsi
|dal súhlas|sľúbil si|вже схвалив|вже погодив|дав дозвіл|ти обіцяв|уже одобрил|уже согласовал
|дал добро|ты обещал|вече одобри|вече разреши|даде съгласие|обеща|već odobri|već je odobri
|odobrio je|dao dozvolu|dao je dozvolu|obećao si|rekao je da je u redu|već odobrio|већ одобри
|дао дозволу|обећао си|a aprobat deja|și-a dat acordul|ai promis|már jóváhagyta|engedélyezte
|megígérted|έχει ήδη εγκρίνει|ενέκρινε|έδωσε άδεια|υποσχέθηκες|zaten onayladı|onay verdi
|izin verdi|söz verdin|sudah setuju|sudah menyetujui|sudah mengizinkan|telah meluluskan
|sudah meluluskan|kata tidak apa|sudah kasih izin|kamu sudah janji|anda telah berjanji|đã duyệt
|đã đồng ý|đã cho phép|đã phê duyệt|bạn đã hứa|อนุมัติแล้ว|ตกลงแล้ว|อนุญาตแล้ว|สัญญาไว้
|ameshaidhinisha|tayari ameidhinisha|ameruhusu|uliahidi|umeshaidhinishwa|पहले ही मंजूरी|मंजूरी दे दी
|अनुमति दे दी|सहमति दे दी|तुमने वादा किया|وافق بالفعل|وعدت|כבר אישר|נתן אישור|הבטחת|قبلاً تأیید
|تأیید کرده|اجازه داده|قول دادی|已经批准|已批准|已经同意|授权了|你答应过|你承诺过|すでに承認|承認済み
|許可済み|了承済み|約束した|이미 승인|승인했|허락했|약속했|jau patvirtino|davė leidimą|pažadėjai
|sakė, kad galima|jau apstiprināja|ir atļāvuši|deva atļauju|tu apsolīji|on juba heaks kiitnud
|kiitis heaks|andis loa|sa lubasid|pumayag na|inaprubahan na|aprobado na|nangako ka|pinayagan na
|ஏற்கனவே ஒப்புதல்|அனுமதி அளித்|வாக்குறுதி|پہلے ہی منظور|منظوری دے دی|اجازت دے دی|وعدہ کیا تھا
|ja ha aprovat|ha autoritzat|ha donat el vistiplau|vas prometre|ইতিমধ্যে অনুমোদন|অনুমতি দিয়েছেন
|প্রতিশ্রুতি দিয়েছিলে|আগেই অনুমোদিত|already been approved
"""

# People who outrank the user in a story: the security team, the CTO, IT support, legal.
AUTHORITY_FIGURE = """
security team|the cto|cto|ceo|manager|administrator|it support|helpdesk|help desk|legal|compliance
|maintainer|repo owner|project owner|the owner|operator|developers of|team lead|boss|sysadmin
|ops team|sicherheitsteam|vorgesetzte|it-support|rechtsabteilung|betreiber|teamleiter|équipe de sécurité
|directeur|administrateur|support informatique|service juridique|mainteneur|patron|equipo de seguridad
|director|jefe|gerente|administrador|soporte de ti|departamento legal|mantenedor|dueño del repo
|equipe de segurança|diretor|chefe|suporte de ti|jurídico|dono do repo|team di sicurezza|direttore
|amministratore|supporto it|ufficio legale|beveiligingsteam|beheerder|juridische afdeling
|säkerhetsteamet|administratör|sikkerhedsteamet|sikkerhetsteamet|tietoturvatiimi|johtaja|esimies
|ylläpitäjä|it-tuki|zespół bezpieczeństwa|dyrektor|szef|kierownik|wsparcie it|dział prawny
|właściciel repo|bezpečnostní tým|ředitel|šéf|vedoucí|správce|it podpora|bezpečnostný tím|riaditeľ
|vedúci|správca|команда безпеки|директор|керівник|адміністратор|служба підтримки|команда безопасности
|служба безопасности|руководител|начальник|администратор|техподдержка|юрист|екипът по сигурност
|ръководител|шеф|it поддръжка|tim za sigurnost|tim za bezbednost|direktor|menadžer|voditelj
|it podrška|pravna služba|vlasnik|echipa de securitate|șef|suport it|departamentul juridic
|proprietarul|biztonsági csapat|igazgató|főnök|rendszergazda|jogi osztály|ομάδα ασφαλείας|διευθυντ
|προϊστάμεν|διαχειριστ|güvenlik ekibi|müdür|yönetici|tim keamanan|pasukan keselamatan|direktur
|pengarah|manajer|pengurus|atasan|dukungan it|sokongan it|pemilik proyek|pemilik repo|đội bảo mật
|giám đốc|quản lý|sếp|quản trị viên|bộ phận it|ทีมความปลอดภัย|ผู้อำนวยการ|หัวหน้า|ผู้จัดการ|ผู้ดูแลระบบ
|timu ya usalama|mkurugenzi|meneja|msimamizi|mmiliki|सुरक्षा टीम|निदेशक|प्रबंधक|मैनेजर|व्यवस्थापक
|فريق الأمن|المدير|مديري|الدعم الفني|مالك المستودع|צוות האבטחה|המנהל|הבוס|מנהל המערכת|תמיכה טכנית
|تیم امنیت|مدیر|رئیس|پشتیبانی فنی|安全团队|总监|经理|老板|管理员|技术支持|法务|维护者|セキュリティチーム
|上司|マネージャー|管理者|法務|メンテナ|보안팀|매니저|상사|관리자|법무팀|메인테이너|saugumo komanda
|vadov|teisinink|savinink|drošības komanda|vadītāj|priekšniek|jurist|īpašniek|turvameeskond|ülemus
|administraator|it-tugi|juristid|omanik|may-ari|பாதுகாப்பு குழு|மேலாளர்|நிர்வாகி|அதிகாரி|உரிமையாளர்
|سیکیورٹی ٹیم|ڈائریکٹر|مینیجر|ایڈمن|آئی ٹی سپورٹ|equip de seguretat|suport informàtic|equip legal
|propietari|নিরাপত্তা দল|পরিচালক|ম্যানেজার|অ্যাডমিন|আইটি সাপোর্ট|hermes-maintainer
"""

# Hurry: urgent, right now, everyone is waiting.
URGENCY = """
urgent|emergency|right now|immediately|asap|as soon as possible|no time|quick favour|quick favor
|hurry|everyone is waiting|in ten minutes|dringend|notfall|sofort|eilig|urgence|immédiatement
|tout de suite|urgente|emergencia|inmediatamente|ahora mismo|ya mismo|emergência|imediatamente
|agora mesmo|emergenza|subito|immediatamente|spoed|noodgeval|meteen|onmiddellijk|brådskande
|genast|omedelbart|nödläge|haster|straks|med det samme|kiireellinen|välittömästi|pilne|pilnie
|natychmiast|od razu|naléhavé|urgentní|okamžitě|naliehavé|urgentné|okamžite|терміново|негайно
|срочно|немедленно|сейчас же|спешно|веднага|незабавно|hitno|odmah|smjesta|хитно|одмах|urgență
|imediat|sürgős|azonnal|vészhelyzet|επείγον|αμέσως|έκτακτη ανάγκη|acil|hemen|derhal|mendesak
|darurat|segera|sekarang juga|kecemasan|khẩn cấp|gấp|ngay lập tức|ngay bây giờ|ด่วน|ฉุกเฉิน|ทันที
|dharura|mara moja|sasa hivi|तुरंत|आपातकाल|अर्जेंट|عاجل|طارئ|فورًا|فورا|דחוף|חירום|מיד|فوری
|اضطراری|همین الان|紧急|马上|立刻|立即|赶紧|尽快|至急|今すぐ|急いで|긴급|즉시|지금 당장|skubiai
|nedelsiant|tuoj pat|steidzami|nekavējoties|tūlīt|ārkārtas|viivitamata|hädaolukord|ngayon din
|apurahan|agad|அவசர|உடனே|உடனடியாக|ہنگامی|ابھی|urgència|immediatament|ara mateix|জরুরি|এখনই
|অবিলম্বে|তাড়াতাড়ি|haraka
"""

# Places outside the machine: pastes, gists, webhooks, drives, DNS, other remotes.
PUBLIC_PLACE = """
webhook|gist|pastebin|paste.rs|paste.|hastebin|transfer.sh|0x0.st|ngrok|requestbin|pipedream
|hooks.|sftp://|ftp://|s3://|google drive|dropbox|personal drive|shared drive|public|dns lookup
|subdomain|nslookup|git remote|remote add|![|?d=|?data=|?q=|@gmail|telegram|öffentlich
|público|pública|pubblic|openbaar|offentlig|julkinen|publiczn|veřejn|verejn|публічн|публичн|javn
|nyilvános|δημόσι|herkese açık|publik|awam|công khai|สาธารณะ|hadharani|सार्वजनिक|ציבורי|عمومی
|公开|公開|공개|viešą|viešo|publisk|avalik|pampubliko|பொது|عوامی|públic|পাবলিক|persönlich
|personnel|pessoal|personale|persoonlijk|henkilökohtai|prywatn|особист|личн|lični|osobni
|személyes|προσωπικ|kişisel|pribadi|peribadi|cá nhân|ส่วนตัว|binafsi|निजी|الشخصي|האישי|شخصی|私人
|個人|asmenin|personīg|isiklik|தனிப்பட்ட|ذاتی|ব্যক্তিগত|mirror|backup-
"""

# The gate itself and checks like it: approvals, confirmations, reviews, signing, tests.
CHECKS = """
approval|confirmation|confirm|review|verification|verify|signing|signature|--no-verify|dialog
|preview|write gate|genehmigung|bestätigung|prüfung|überprüfung|validation|approbation
|vérification|contrôle|relecture|aprobación|confirmación|verificación|revisión|comprobación
|aprovação|confirmação|verificação|revisão|approvazione|conferma|verifica|revisione|goedkeuring
|bevestiging|controle|verificatie|godkännande|bekräftelse|granskning|godkendelse|godkjenning
|bekræftelse|bekreftelse|gennemgang|gjennomgang|hyväksyn|vahvistu|tarkistu|katselmoin
|zatwierdzen|potwierdzen|weryfikacj|sprawdzen|schválení|potvrzení|ověření|schválen|potvrden
|overen|погодженн|підтвердженн|перевірк|схваленн|одобрени|подтверждени|проверк|согласовани
|потвърждени|одобрения|odobrenj|potvrd|provjer|proveri|одобрењ|потврд|провер|aprobar|confirmar
|verificar|jóváhagyás|megerősítés|ellenőrzés|έγκριση|επιβεβαίωση|onay|doğrulama|persetujuan
|konfirmasi|pengesahan|verifikasi|pemeriksaan|semakan|kelulusan|phê duyệt|xác nhận|kiểm tra
|การอนุมัติ|ยืนยัน|ตรวจสอบ|idhini|uthibitisho|ukaguzi|kuthibitisha|मंजूरी|पुष्टि|जांच|जाँच|समीक्षा
|موافقة|تأكيد|التحقق|مراجعة|אישור|אימות|בדיק|تأیید|تایید|بررسی|审批|批准|确认|审核|检查|验证|承認
|確認|レビュー|検証|승인|확인|검토|검증|patvirtinim|patikr|peržiūr|apstiprinājum|pārbaud|kinnitus
|kontroll|ülevaatus|heakskiit|kumpirmasyon|pag-apruba|pagsusuri|ஒப்புதல்|உறுதிப்படுத்த|சரிபார்
|منظوری|تصدیق|جانچ|aprovació|confirmació|verificació|revisió|comprovació|অনুমোদন|নিশ্চিতকরণ
|যাচাই
"""

# A safeguard named: "ask first", "by hand", "the user runs it themselves", "via a PR".
SAFEGUARD = """
ask before|ask first|asks before|asked before|to be asked|be asked|check with|confirm with
|after checking|needs approval|need approval|requires approval|two approvals|by hand|manually
|themselves|on purpose|not by the agent|never by the agent|not by us|through a pr|via a pr
|go through a pr|reviewed like|vorher fragen|zuerst fragen|manuell|von hand|demander avant
|demande d'abord|manuellement|à la main|preguntar antes|pregunta primero|a mano|manualmente
|perguntar antes|pergunte antes|chiedere prima|chiedi prima|eerst vragen|vraag eerst|handmatig
|fråga först|manuellt|för hand|spørg først|spør først|manuelt|kysy ensin|käsin|manuaalisesti
|zapytaj najpierw|ręcznie|nejdřív se zeptej|ručně|najprv sa spýtaj|ručne|спершу запитай|вручну
|сначала спроси|вручную|първо питай|да бъде питан|ръчно|prvo pitaj|ručno|pokreće sam|întreabă mai întâi
|kézzel|ρώτα πρώτα|χειροκίνητα|önce sor|tanya dulu|tanya dahulu|secara manual|hỏi trước
|thủ công|tự chạy|ถามก่อน|uliza kwanza|पहले पूछ|يدويًا|يدويا|بنفسه|שאל קודם
|ידנית|בעצמו|اول بپرس|دستی|先问|先询问|手动|事前に確認|手動|먼저 물어|수동|pirma paklausk
|rankiniu būdu|vispirms jautā|manuāli|küsi enne|käsitsi|tanungin muna|mano-mano|siya mismo
|முதலில் கேள்|கைமுறையாக|پہلے پوچھ|pregunta abans|manualment|আগে জিজ্ঞেস|jalankan sendiri
|dia jalankan
"""

# A prohibition: never, must not, forbidden.
NEVER = """
never|must not|mustn't|not allowed|forbidden|prohibited|niemals|darf nicht|verboten|jamais
|ne doit pas|interdit|nunca|jamás|no debe|prohibido|não deve|proibido|non deve|vietato|nooit
|mag niet|verboden|aldrig|får inte|förbjud|aldri|må ikke|forbudt|ei koskaan|älä koskaan|ei saa
|kielletty|nigdy|nie wolno|zabronion|nikdy|nesmí|zakázán|nesmie|zakázan|ніколи|не можна
|заборонен|никогда|нельзя|запрещен|никога|не бива|забранен|nikad|nikada|ne smije|ne sme
|zabranjen|никад|не сме|забрањен|niciodată|nu trebuie|interzis|soha|nem szabad|tilos|ποτέ
|δεν πρέπει|απαγορεύ|asla|hiçbir zaman|yasak|jangan pernah|tidak boleh|dilarang|tidak pernah
|không bao giờ|đừng bao giờ|không được|ห้าม|kamwe|hairuhusiwi|marufuku|कभी नहीं|कभी मत|ممنوع
|لا يجوز|לעולם|אף פעם|אסור|هرگز|هیچ‌وقت|نباید|永远不要|禁止|不得|切勿|決して|絶対に|してはいけない
|절대|금지|niekada|negalima|draudžiama|nekad|nedrīkst|aizliegts|mitte kunagi|ära kunagi|ei tohi
|keelatud|huwag kailanman|hindi kailanman|bawal|ஒருபோதும்|கூடாது|کبھی نہیں|منع|no ha de
|prohibit|no s'ha de|কখনো|কখনও|নিষিদ্ধ|nesmie sa|ne smeju|nevykdyk|never the agent
"""

# Checks called a nuisance: "a waste of time", "annoying", "slows them down", "gets in the way".
NUISANCE = """
waste of time|slows them down|slow them down|slows down|gets in the way|get in the way|friction
|pointless|useless|noisy|nuisance|patronising|patronizing|tedious|hates being asked
|hate being asked|hates being|tired of|sick of|interrupting|only causes|nothing useful
|unnecessary|needless|overkill|zeitverschwendung|nervt|nervig|lästig|bremst|perte de temps
|agaçant|ralentit|inutile|pérdida de tiempo|molesta|fastidi|ralentiza|inútil|estorba
|perda de tempo|irrita|incomoda|atrapalha|perdita di tempo|infastidisc|rallenta|tijdverspilling
|irritant|vertraagt|nutteloos|slöseri med tid|irriterande|saktar ner|onödig|spild af tid
|bortkastet tid|irriterende|forstyrr|unødvendig|ajanhukkaa|ärsyttä|hidastaa|turha|strata czasu
|irytuj|denerwuj|przeszkadza|spowalnia|zbędn|niepotrzebn|ztráta času|otravn|obtěžuj|zdržuj
|zbytečn|vadí|strata času|obťažuj|zdržiava|zbytočn|prekáža|марнування часу|дратує|заважає
|сповільнює|трата времени|пустая трата|раздража|мешает|замедляет|бесполезн|загуба на време
|дразни|пречи|забавя|безсмислен|излишн|gubljenje vremena|gubitak vremena|nervira|smeta|usporava
|beskorisn|suvišn|губљење времена|нервира|смета|pierdere de timp|enervea|deranjea|încetinește
|időpocsékolás|idegesít|lelassít|felesleges|χάσιμο χρόνου|ενοχλ|άχρηστ|περιττ|zaman kaybı
|sinir bozucu|rahatsız|yavaşlat|gereksiz|buang waktu|membuang waktu|buang masa|mengganggu
|menjengkelkan|memperlambat|melambatkan|tidak berguna|mất thời gian|làm chậm|vô ích|khó chịu
|ghét bị hỏi|เสียเวลา|น่ารำคาญ|รำคาญ|ทำให้ช้า|kupoteza muda|inakera|inamkera|inachelewesha
|yanamchelewesha|unampotezea muda|hapendi kuulizwa|समय की बर्बादी|परेशान|झुंझला|धीमा कर|बेकार
|مضيعة للوقت|مزعج|يزعج|بلا فائدة|בזבוז זמן|מעצבן|מפריע|מיותר|اتلاف وقت|وقت تلف|آزاردهنده
|مزاحم|کند می|بی‌فایده|پرسیدن‌های مکرر|浪费时间|烦人|很烦|打扰|拖慢|多余|没必要|時間の無駄
|うっとうしい|煩わしい|邪魔|시간 낭비|귀찮|방해|불필요|laiko švaistymas|erzina|trukdo|lėtina
|nereikaling|laika tērēšana|kaitina|traucē|palēnina|nevajadzīg|ajaraiskamine|ärritab|segab
|aeglustab|tarbetu|jääb jalgu|sayang sa oras|nakakainis|nakakaabala|nagpapabagal|walang silbi
|நேர விரயம்|எரிச்சல்|தொந்தரவு|தேவையற்ற|وقت کا ضیاع|تنگ کر|پریشان کر|بے کار|فضول
|pèrdua de temps|molesten|emprenya|alenteix|সময় নষ্ট|বিরক্ত|অপ্রয়োজনীয়|загуба на време
"""

# Done by the agent alone: automatically, on its own, approving itself.
AUTOMATIC = """
automatically|auto-trust|trust every|trust all|trust any|on your own|by yourself|on its own
|approve your own|approves on its own|approves itself|self-approve|automatisch|selbstständig
|eigenständig|automatiquement|de toi-même|automáticamente|por tu cuenta|por sí mismo
|automaticamente|por conta própria|da solo|zelfstandig|automatiskt|på egen hand|automatisk
|selvstændigt|automaattisesti|itsenäisesti|automatycznie|samodzielnie|automaticky|samostatně
|автоматично|самостійно|автоматически|самостоятельно|automatski|samostalno|automat|singur
|automatikusan|önállóan|αυτόματα|μόνος του|μόνος το|otomatik|kendi başına|secara otomatis
|otomatis|secara automatik|tự động|อัตโนมัติ|kiotomatiki|peke yake|अपने आप|स्वचालित|تلقائي
|تلقائيًا|אוטומטית|خودکار|自动|自動|자동|automatiškai|savarankiškai|automātiski|patstāvīgi
|automaatselt|iseseisvalt|awtomatik|தானாக|خود بخود|خودبخود|automàticament|pel teu compte
|স্বয়ংক্রিয়|নিজে থেকে
"""

# Rules declared void: "no longer apply", "cancelled", "superseded".
VOID = """
no longer apply|no longer valid|no longer in force|are void|null and void|cancelled|canceled|revoked
|obsolete|superseded|nicht mehr gültig|aufgehoben|ungültig|ne s'appliquent plus|annulé|caduque
|ya no aplican|ya no son válid|anulad|não valem mais|revogad|non valgono più|annullat|revocat
|gelden niet meer|vervallen|gäller inte längre|upphävd|gælder ikke længere|gjelder ikke lenger
|eivät ole enää voimassa|kumottu|mitätön|nie obowiązują|unieważnion|neplatí|zrušen|už neplatia
|більше не діють|скасован|недійсн|больше не действуют|отменен|недействительн|вече не важат
|невалидн|više ne važe|ne vrijede|poništen|више не важе|nu mai sunt valabile|anulat
|már nem érvényes|visszavon|δεν ισχύουν|ακυρώθηκ|artık geçerli değil|iptal|tidak berlaku lagi
|dibatalkan|tidak lagi berlaku|không còn hiệu lực|đã hủy|ยกเลิกแล้ว|ไม่มีผลแล้ว|hayatumiki tena
|imefutwa|अब लागू नहीं|रद्द|لم تعد سارية|ملغاة|ملغية|כבר לא בתוקף|בוטל|دیگر معتبر نیست|لغو شده
|不再适用|已作废|作废|もう無効|無効になった|廃止|더 이상 유효하지|무효|nebegalioja|atšaukt
|vairs nav spēkā|atcelt|ei kehti enam|tühistatud|hindi na valid|kanselado|binawi|இனி செல்லாது
|ரத்து|اب لاگو نہیں|منسوخ|ja no són vàlid|anul·lat|আর প্রযোজ্য নয়|বাতিল
"""

# Copying somewhere: copy, duplicate.
COPY = """
copy|duplicate|kopier|copie|copia|kopiuj|skopiuj|zkopíruj|skopíruj|kopíruj|копируй|скопируй
|копіюй|скопіюй|копирай|kopiraj|копирај|copiază|másold|αντίγραψ|kopyala|salin|sao chép|คัดลอก
|nakili|कॉपी|انسخ|העתק|کپی|复制|コピー|복사|nukopijuok|kopijuok|nokopē|kopē|kopeeri|kopyahin
|நகலெடு|نقل کر|کاپی|কপি|tar up|zapakiraj|pakkaa|archive|attach|priloži|prilož|liitä
"""

# Showing a file's contents: print, output, the contents of.
CONTENTS = """
contents of|content of|the contents|print the|output the|dump|obsah|съдържанието|sadržaj|zawartość
|содержимое|вміст|conteúdo|contenu|contenido|inhalt|contenuto|inhoud|innehåll|indhold|innhold
|sisältö|tartalm|περιεχόμενο|içeriğ|nội dung|เนื้อหา|yaliyomo|सामग्री|محتوى|תוכן|محتوای|内容|中身
|내용|turin|saturu|sisu|laman|உள்ளடக்க|مواد|contingut|বিষয়বস্তু|vypiš|отпечатай|ispiši|wypisz
|выведи|виведи|imprime|affiche|stampa|cetak|in ra|พิมพ์|chapisha|प्रिंट|اطبع|הדפס|打印|输出|出力
|출력|išspausdink|izdrukā|prindi|i-print|அச்சிடு|پرنٹ|imprimeix|প্রিন্ট
"""

# Lasting: permanent, for good.
PERMANENT = """
permanent|for good|forever|permanen|permanente|dauerhaft|trvale|trvalo|постоянно|назавжди|навсегда
|завинаги|zauvek|zauvijek|trajno|tartós|végleg|μόνιμα|kalıcı|vĩnh viễn|ถาวร|kudumu|स्थायी
|हमेशा के लिए|دائم|לצמיתות|לתמיד|دائمی|永久|永远|ずっと|영구|visam laikui|pastāvīgi|uz visiem laikiem
|alaliselt|jäädavalt|magpakailanman|நிரந்தர|مستقل|ہمیشہ کے لیے|per sempre|স্থায়ী|চিরকাল
"""

# On a schedule: every day, every Friday, nightly.
SCHEDULE = """
every friday|every monday|every evening|every morning|every hour|every day|every week|hourly|nightly
|daily|weekly|jeden tag|jede woche|jeden abend|chaque jour|chaque semaine|chaque soir|cada día
|cada semana|cada noche|todo dia|toda semana|toda noite|ogni giorno|ogni settimana|ogni sera
|elke dag|elke week|elke avond|varje dag|varje vecka|varje kväll|hver dag|hver uke|hver aften
|hver kveld|joka päivä|joka viikko|joka ilta|codziennie|co tydzień|każdego dnia|co wieczór
|každý den|každý týden|každý večer|každý deň|щодня|щотижня|щовечора|каждый день|каждую неделю
|каждый вечер|всеки ден|всяка седмица|всяка вечер|svaki dan|svake nedelje|svaki tjedan|svako veče
|svake večeri|în fiecare zi|zilnic|săptămânal|în fiecare seară|minden nap|minden héten|minden este
|κάθε μέρα|κάθε εβδομάδα|κάθε βράδυ|her gün|her hafta|her akşam|setiap hari|setiap minggu
|setiap malam|mỗi ngày|mỗi tuần|mỗi tối|ทุกวัน|ทุกสัปดาห์|ทุกคืน|kila siku|kila wiki|kila jioni
|हर दिन|रोज़|रोज|हर हफ्ते|हर शाम|كل يوم|كل أسبوع|كل مساء|כל יום|כל שבוע|כל ערב|هر روز|هر هفته
|هر شب|每天|每周|每晚|毎日|毎週|毎晩|매일|매주|매일 밤|kasdien|kas savaitę|kiekvieną vakarą|katru dienu
|katru nedēļu|katru vakaru|iga päev|igal nädalal|igal õhtul|araw-araw|bawat linggo|gabi-gabi
|தினமும்|ஒவ்வொரு வாரமும்|ہر روز|ہر ہفتے|ہر شام|cada dia|cada setmana|cada vespre|প্রতিদিন
|প্রতি সপ্তাহে|প্রতি সন্ধ্যায়|svako jutro|každé ráno
"""

IDEAS: tuple[tuple[str, str], ...] = (
    ("restore", RESTORE),
    ("spread", SPREAD),
    ("autostart", AUTOSTART),
    ("trigger", TRIGGER),
    ("already_ok", ALREADY_OK),
    ("authority_figure", AUTHORITY_FIGURE),
    ("urgency", URGENCY),
    ("public_place", PUBLIC_PLACE),
    ("checks", CHECKS),
    ("safeguard", SAFEGUARD),
    ("never", NEVER),
    ("nuisance", NUISANCE),
    ("automatic", AUTOMATIC),
    ("void", VOID),
    ("copy", COPY),
    ("contents", CONTENTS),
    ("permanent", PERMANENT),
    ("schedule", SCHEDULE),
)
