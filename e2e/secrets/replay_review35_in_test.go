package secrets

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview35InJSONEscapes: a string's escaped quote (\") was
// read as the string holds it, JSON's other escapes as written: a
// skill's config.json keeping a .env or an INI section in one string,
// its lines parted by \n (DB_PASSWORD=… and password = … each begin a
// line only once \n is one), and a plugin's hooks.json whose command
// writes its quotes and ampersands as \u0022 and \u0026 (Go's encoder
// writes & so) crossed. The attack, from inside: read them. Proof: none
// is inside and --dry-run names the files; a config.json whose \n-parted
// lines hold none still is.
func TestReplayReview35InJSONEscapes(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	skill := filepath.Join(claude, "skills", "report")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: report\ndescription: reports\n---\nRead config.json\n")
	h.Write(filepath.Join(skill, "config.json"), `{"env": "DB_HOST=db.internal\nDB_PASSWORD=R35nlEnv\n", "ini": "[smtp]\nhost = mail.internal\npassword = R35nlIni\n"}`+"\n")
	h.Write(filepath.Join(skill, "layout.json"), `{"env": "DB_HOST=db.internal\nDB_NAME=R35-HARMLESS-LAYOUT\n"}`+"\n")
	hooks := filepath.Join(claude, "plugins", "cache", "tools", "ping", "1.0.0")
	h.Write(filepath.Join(claude, "plugins", "installed_plugins.json"), `{"version": 2, "plugins": {
		"ping@tools": [{"scope": "user", "installPath": "`+hooks+`", "version": "1.0.0"}]}}`)
	h.Write(filepath.Join(hooks, ".claude-plugin", "plugin.json"), `{"name": "ping", "version": "1.0.0"}`)
	h.Write(filepath.Join(hooks, "hooks", "hooks.json"), `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "curl -s -H \u0022X-Api-Key: R35uniKey\u0022 https://status.example.com/done"},
  {"type": "command", "command": "cd /srv\u0026\u0026PGPASSWORD=R35ampPg psql -c 'select 1'"}
]}]}}
`)
	out := h.Inside(proj, nil, "exec 2>&1; grep -rhoa 'R35[a-zA-Z0-9-]*' ~/.claude; true")
	t.Log(out)
	for _, secret := range []string{"R35nlEnv", "R35nlIni", "R35uniKey", "R35ampPg"} {
		if strings.Contains(out, secret) {
			t.Errorf("a credential behind a JSON escape is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R35-HARMLESS-LAYOUT") {
		t.Errorf("inside, want the config.json whose lines hold no credential")
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"skills/report/config.json", "ping/1.0.0/hooks/hooks.json"} {
		if !strings.Contains(dry, f) {
			t.Errorf("--dry-run does not name %s", f)
		}
	}
}

// TestReplayReview35InKeysOfOtherShapes: a settings key was a
// credential's name by its end (password, secret, token, key after a
// separator, a capitalised Key after a small letter), and its value
// beside it after = or :. A key in Pascal case (.NET's appsettings.json
// SigningKey, EncryptionKey), .NET's <setting name="ApiKey"> whose value
// is its <value> element, and Redis's requirepass and masterauth and
// Sentinel's auth-pass, a directive and its value parted by a space,
// crossed in a skill's files, and in Redis's own redis.conf of over 100
// KiB, edited in place, which is judged as large settings are. The attack, from inside: read them. Proof:
// none is inside; a Redis configuration and an appsettings.json holding
// none still are.
func TestReplayReview35InKeysOfOtherShapes(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "ops")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: ops\ndescription: operates the services\n---\nSee the files beside.\n")
	h.Write(filepath.Join(skill, "appsettings.json"), `{"Jwt": {"Issuer": "ops", "SigningKey": "R35pascalSign"}, "Storage": {"EncryptionKey": "R35pascalEnc"}}`+"\n")
	h.Write(filepath.Join(skill, "app.config"), "<configuration><applicationSettings><Ops.Properties.Settings>\n  <setting name=\"ApiKey\" serializeAs=\"String\">\n    <value>R35dotnetKey</value>\n  </setting>\n</Ops.Properties.Settings></applicationSettings></configuration>\n")
	h.Write(filepath.Join(skill, "redis.conf"), "bind 127.0.0.1\nport 6379\nrequirepass R35redisPass\n")
	h.Write(filepath.Join(skill, "replica.conf"), "replicaof 10.0.0.1 6379\nmasterauth R35redisAuth\n")
	h.Write(filepath.Join(skill, "sentinel.conf"), "sentinel monitor main 10.0.0.1 6379 2\nsentinel auth-pass main R35sentinel\n")
	h.Write(filepath.Join(skill, "local.conf"), "bind 127.0.0.1\nport 6380\n# R35-HARMLESS-REDIS\n")
	stock := strings.Repeat("# Redis's own redis.conf is over 100 KiB of comments such as this one.\n", 1600) + "# requirepass foobared\n"
	h.Write(filepath.Join(skill, "redis-stock.conf"), stock+"port 6379\n# R35-HARMLESS-STOCK\n")
	h.Write(filepath.Join(skill, "redis-edited.conf"), stock+"port 6379\nrequirepass R35redisLarge\n")
	h.Write(filepath.Join(skill, "logging.json"), `{"Logging": {"LogLevel": {"Default": "Information"}}, "Note": "R35-HARMLESS-APPSETTINGS"}`+"\n")
	out := h.Inside(proj, nil, "exec 2>&1; grep -rhoa 'R35[a-zA-Z0-9-]*' ~/.claude; true")
	t.Log(out)
	for _, secret := range []string{"R35pascalSign", "R35pascalEnc", "R35dotnetKey", "R35redisPass", "R35redisAuth", "R35sentinel", "R35redisLarge"} {
		if strings.Contains(out, secret) {
			t.Errorf("a credential is readable inside (%s)", secret)
		}
	}
	for _, want := range []string{"R35-HARMLESS-REDIS", "R35-HARMLESS-APPSETTINGS", "R35-HARMLESS-STOCK"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s, which holds none", want)
		}
	}
}

// TestReplayReview35InVendorConf: a vendor's toolchain below /usr/local
// (Maven: its boot/ and bin/mvn) was shown whole, unjudged, its conf/
// with the rest: an organization's distribution keeps its repositories'
// passwords in conf/settings.xml, and one commented out there (an old
// server's, <!-- <password>…</password> -->) is as readable. The attack,
// from inside: read them. Proof: neither is inside and --dry-run names
// them; Maven's own settings.xml, whose comments show a placeholder
// <password>, and its programs still are.
func TestReplayReview35InVendorConf(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "R35mvn"
	stage := filepath.Join(h.Base, "usr-local")
	maven := func(name, settings string) {
		h.Write(filepath.Join(stage, name, "bin", "mvn"), "#!/bin/sh\necho R35-MVN-"+name+"\n")
		h.Write(filepath.Join(stage, name, "boot", "plexus-classworlds.license"), "R35-BOOT\n")
		h.Write(filepath.Join(stage, name, "conf", "settings.xml"), settings)
		h.Write(filepath.Join(stage, name, "conf", "toolchains.xml"), "<toolchains><!-- R35-TOOLCHAINS --></toolchains>\n")
	}
	maven("maven-corp", "<settings>\n  <servers>\n    <server>\n      <id>corp</id>\n      <username>deploy</username>\n      <password>"+secret+"Corp7q</password>\n    </server>\n  </servers>\n</settings>\n")
	maven("maven-old", "<settings>\n  <servers>\n  <!--\n    <server>\n      <id>old</id>\n      <username>deploy</username>\n      <password>"+secret+"Old9xQ2</password>\n    </server>\n  -->\n  </servers>\n</settings>\n")
	maven("maven", "<settings>\n  <!-- R35-STOCK\n    <server>\n      <id>deploymentRepo</id>\n      <username>repouser</username>\n      <password>repopwd</password>\n    </server>\n    <server>\n      <id>siteServer</id>\n      <privateKey>/path/to/private/key</privateKey>\n      <passphrase>optional; leave empty if not used.</passphrase>\n    </server>\n  -->\n  <proxies>\n    <!--\n    <proxy>\n      <username>proxyuser</username>\n      <password>proxypass</password>\n    </proxy>\n    -->\n  </proxies>\n</settings>\n")
	usrLocalStaged{
		stage: stage, secret: secret, hostFile: "/usr/local/maven-corp/conf/settings.xml",
		script: "exec 2>&1; grep -ra " + secret + " /usr/local; grep -rah R35- /usr/local; /usr/local/maven/bin/mvn; /usr/local/maven-corp/bin/mvn; true",
		where:  "in a vendor's toolchain's conf/ below /usr/local",
		want:   []string{"R35-STOCK", "R35-TOOLCHAINS", "R35-BOOT", "R35-MVN-maven", "R35-MVN-maven-corp"},
		hidden: []string{"/usr/local/maven-corp/conf/settings.xml", "/usr/local/maven-old/conf/settings.xml"},
	}.check(t, h)
}

// TestReplayReview35InBinaryFiles: where files are judged one by one
// (the directories an administrator installs into below /usr/local, a
// skill's, a root of one's own a bin/ on PATH widens to), a binary file
// was shown unread, or by its name alone: a SQLite database holding a
// service's token, a backup's configs.tar.gz with a .env, a jar whose
// properties hold a database's password, a skill's compiled class with a
// token built in, were readable inside. The attack, from inside: read
// them (grep, zcat). Proof: none is inside and --dry-run names them;
// what is known to hold none (a program, a library, an image, a manual
// page, a jar of classes holding none) still is.
func TestReplayReview35InBinaryFiles(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "R35bin"
	token := "ghp_" + secret + "Q2pLm4x9WZk3wQp9LmT2vXr7BQpwZ"
	stage := filepath.Join(h.Base, "usr-local")
	h.Write(filepath.Join(stage, "share", "crm", "cache.db"), sqliteWith(t, "create table auth(k, v); insert into auth values('github', '"+token+"');"))
	h.Write(filepath.Join(stage, "share", "backup", "configs.tar.gz"), gzipped(t, tarOf(t, map[string]string{"app/.env": "DEPLOY_TOKEN=" + secret + "TarTk9\n"})))
	h.Write(filepath.Join(stage, "lib", "app", "client.jar"), zipOf(t, map[string]string{"META-INF/MANIFEST.MF": "Manifest-Version: 1.0\n", "config.properties": "db.user=app\ndb.password=" + secret + "JarPw\n"}))
	h.Write(filepath.Join(stage, "lib", "app", "util.jar"), zipOf(t, map[string]string{"META-INF/MANIFEST.MF": "Manifest-Version: 1.0\n", "app/Util.class": classWith("app/Util", "R35-HARMLESS-CLASS"), "app/messages.properties": "greeting=R35-HARMLESS-JAR\n"}))
	h.Write(filepath.Join(stage, "lib", "app", "libapp.so"), "\x7fELF\x02\x01\x01\x00\x00R35-HARMLESS-ELF\x00")
	h.Write(filepath.Join(stage, "share", "app", "logo.png"), "\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR R35-HARMLESS-PNG\x00")
	h.Write(filepath.Join(stage, "share", "man", "man1", "app.1.gz"), gzipped(t, []byte(".TH APP 1\n.SH NAME\napp \\- R35-HARMLESS-MAN\n")))
	usrLocalStaged{
		stage: stage, secret: secret, hostFile: "/usr/local/lib/app/client.jar",
		script: "exec 2>&1; grep -ra " + secret + " /usr/local; for f in $(find /usr/local -name '*.gz'); do zcat $f; done | grep -a " + secret + "; grep -rah R35- /usr/local | tr -d '\\000'; zcat /usr/local/share/man/man1/app.1.gz; true",
		where:  "in a binary file below /usr/local",
		want:   []string{"R35-HARMLESS-CLASS", "R35-HARMLESS-JAR", "R35-HARMLESS-ELF", "R35-HARMLESS-PNG", "R35-HARMLESS-MAN"},
		hidden: []string{"/usr/local/share/crm/cache.db", "/usr/local/share/backup/configs.tar.gz", "/usr/local/lib/app/client.jar"},
	}.check(t, h)
}

// TestReplayReview35InBinaryFilesOfOwnTrees: the same of a skill's files,
// where a compiled class and a jar were shown by their names alone
// (.class, .jar), and of a root of one's own on PATH, where a binary
// file (a SQLite database in its lib/) was shown unread. The attack,
// from inside: read them. Proof: none is inside; a class holding none
// and the tool's program still are.
func TestReplayReview35InBinaryFilesOfOwnTrees(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const secret = "R35own"
	token := "ghp_" + secret + "Q2pLm4x9WZk3wQp9LmT2vXr7BQpwZ"
	skill := filepath.Join(h.Home, ".claude", "skills", "crm")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: crm\ndescription: queries the CRM\n---\nRun java -cp lib Client\n")
	h.Write(filepath.Join(skill, "lib", "Client.class"), classWith("Client", "https://api.github.com/user", token))
	h.Write(filepath.Join(skill, "lib", "Format.class"), classWith("Format", "R35-HARMLESS-FORMAT"))
	h.Write(filepath.Join(skill, "lib", "sdk.jar"), zipOf(t, map[string]string{"sdk/Auth.class": classWith("sdk/Auth", token)}))
	ops := filepath.Join(h.Home, "code", "ops")
	h.Write(filepath.Join(ops, "bin", "ops"), "#!/bin/sh\necho R35-OPS\n")
	h.Write(filepath.Join(ops, "lib", "state.sqlite"), sqliteWith(t, "create table t(k, v); insert into t values('deploy', '"+token+"');"))
	if err := os.Chmod(filepath.Join(ops, "bin", "ops"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Join(ops, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; grep -rhoa '"+secret+"[A-Za-z0-9]*' ~/.claude/skills "+ops+"; grep -rhoa 'R35-[A-Z-]*' ~/.claude/skills; ops; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in a binary file of a skill or a root of one's own is readable inside")
	}
	for _, want := range []string{"R35-HARMLESS-FORMAT", "R35-OPS"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s, which holds none", want)
		}
	}
}

// sqliteWith is a SQLite database made by sql, by the sqlite3 program.
func sqliteWith(t *testing.T, sql string) string {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("no sqlite3 to make a database with")
	}
	db := filepath.Join(t.TempDir(), "x.db")
	if out, err := exec.Command("sqlite3", db, sql).CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// zipOf is a zip archive of files, stored uncompressed, as a jar may be.
func zipOf(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, content := range files {
		f, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err == nil {
			_, err = f.Write([]byte(content))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// tarOf is a tar archive of files.
func tarOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for name, content := range files {
		if err := w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content))}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipped is b in a gzip stream, stored uncompressed, so that what it
// holds is what grep finds in it.
func gzipped(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// classWith is a Java class file's start, its constant pool holding the
// class's name and strings, as javac writes a class's literals.
func classWith(name string, strs ...string) string {
	var b bytes.Buffer
	b.Write([]byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 65})
	pool := append([]string{name, "java/lang/Object"}, strs...)
	binary.Write(&b, binary.BigEndian, uint16(len(pool)+1))
	for _, s := range pool {
		b.WriteByte(1)
		binary.Write(&b, binary.BigEndian, uint16(len(s)))
		b.WriteString(s)
	}
	b.Write([]byte{0, 0x21, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	return b.String()
}
