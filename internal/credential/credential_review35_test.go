package credential

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSettingsOfOtherShapes(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{"env": "DB_HOST=db\nDB_PASSWORD=R35nl\n"}`, true},
		{`{"ini": "[smtp]\npassword = R35nlIni\n"}`, true},
		{`{"command": "curl -H \u0022X-Api-Key: R35uniKey\u0022 https://a.example.com/x"}`, true},
		{`{"command": "cd /srv\u0026\u0026PGPASSWORD=R35ampPg psql"}`, true},
		{`{"env": "DB_HOST=db.internal\nDB_NAME=app\n", "path": "C:\\new\\tools"}`, false},
		{`{"Jwt": {"SigningKey": "R35pascalSign"}}`, true},
		{`{"Storage": {"EncryptionKey": "R35pascalEnc"}}`, true},
		{`{"Logging": {"LogLevel": {"Default": "Information"}}}`, false},
		{"requirepass R35redisPass\n", true},
		{"masterauth R35redisAuth\n", true},
		{"sentinel auth-pass main R35sentinel\n", true},
		{"bind 127.0.0.1\nport 6379\nprotected-mode yes\n", false},
		{"PasswordAuthentication no\n", false},
		{"requirepass /run/redis/pass\n", false},
		{"<setting name=\"ApiKey\" serializeAs=\"String\">\n  <value>R35dotnetKey</value>\n</setting>\n", true},
		{"<property name=\"password\"><value>R35spring</value></property>\n", true},
		{"<setting name=\"Theme\" serializeAs=\"String\"><value>dark</value></setting>\n", false},
	} {
		if got := InSettings([]byte(c.text)); got != c.want {
			t.Errorf("InSettings(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestMavenPomNoCredential: every jar Maven builds holds its pom.xml,
// whose namespace's URL, SCM URL and templated paths read as a token or
// a password before; a real one in the same places still is.
func TestMavenPomNoCredential(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/maven-v4_0_0.xsd">`, false},
		{"\t\t<connection>scm:git:git@github.com:codehaus-plexus/plexus-utils.git</connection>\n", false},
		{"\t\t<url>http://github.com/codehaus-plexus/plexus-classworlds/tree/${project.scm.tag}/</url>\n", false},
		{"<url>https://dl.example.com/{{version}}/$ARCH/x.tgz</url>\n", false},
		{"\t\t<connection>scm:git:https://ci:R35scmPw9@git.corp/x.git</connection>\n", true},
		{"<url>https://dl.cloudsmith.io/Zk3wQp9LmT2v/org/repo/${version}/</url>\n", true},
		{`<a xmlns:x="https://h.example.com/Zk3wQp9LmT2v/ns"/> <url>https://h.example.com/Zk3wQp9LmT2v/x</url>`, true},
	} {
		if got := InSettings([]byte(c.text)); got != c.want {
			t.Errorf("InSettings(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestLargeRedisConf: Redis's own redis.conf, over 100 KiB, is edited
// in place; its commented examples are none.
func TestLargeRedisConf(t *testing.T) {
	stock := strings.Repeat("# a comment that pads the file as Redis's own does\n", 2200) + "# requirepass foobared\n# masterauth <master-password>\nport 6379\n"
	if InLargeSettings([]byte(stock)) {
		t.Errorf("InLargeSettings(the stock redis.conf) = true, want false")
	}
	for _, line := range []string{"requirepass R35bigPass\n", "masterauth R35bigAuth\n", "sentinel auth-pass main R35bigSent\n"} {
		if !InLargeSettings([]byte(stock + line)) {
			t.Errorf("InLargeSettings(a large redis.conf with %q) = false, want true", line)
		}
	}
}

func TestVendorSettings(t *testing.T) {
	stock := "<settings>\n  <!--\n    <server>\n      <id>deploymentRepo</id>\n      <username>repouser</username>\n      <password>repopwd</password>\n    </server>\n" +
		"    <server>\n      <privateKey>/path/to/private/key</privateKey>\n      <passphrase>optional; leave empty if not used.</passphrase>\n    </server>\n  -->\n" +
		"  <proxies><!-- <proxy><username>proxyuser</username><password>proxypass</password></proxy> --></proxies>\n</settings>\n"
	for _, c := range []struct {
		text string
		want bool
	}{
		{stock, false},
		{"<settings><servers><server><id>corp</id><password>R35mvnCorp7q</password></server></servers></settings>\n", true},
		{"<settings><servers>\n<!--\n<server><id>old</id><password>R35mvnOld9xQ2</password></server>\n-->\n</servers></settings>\n", true},
		{"<settings><!-- <server><password>ghp_R35Q2pLm4x9WZk3wQp9LmT2vXr7BQpwZ</password></server> --></settings>\n", true},
		{"<!-- the keystore's type -->\n<keystore type=\"pkcs12\"/>\n", false},
		{"javax.net.ssl.trustStorePassword=R35jdkPw\n", true},
	} {
		if got := InVendorSettings([]byte(c.text)); got != c.want {
			t.Errorf("InVendorSettings(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestInBinary(t *testing.T) {
	token := "ghp_R35Q2pLm4x9WZk3wQp9LmT2vXr7BQpwZ"
	zipOf := func(files map[string][]byte) []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		for name, content := range files {
			f, _ := w.Create(name)
			f.Write(content)
		}
		w.Close()
		return buf.Bytes()
	}
	tgz := func(name string, content []byte) []byte {
		var tb bytes.Buffer
		tw := tar.NewWriter(&tb)
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content))})
		tw.Write(content)
		tw.Close()
		var gb bytes.Buffer
		gw := gzip.NewWriter(&gb)
		gw.Write(tb.Bytes())
		gw.Close()
		return gb.Bytes()
	}
	class := func(strs ...string) []byte {
		b := []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 65}
		b = binary.BigEndian.AppendUint16(b, uint16(len(strs)+3))
		b = append(b, 7, 0, 2) // a Class entry, naming the next
		for _, s := range append([]string{"app/Client"}, strs...) {
			b = append(b, 1)
			b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
			b = append(b, s...)
		}
		b = append(b, 5, 0, 0, 0, 0, 0, 0, 0, 1) // a Long, two entries
		return append(b, 0, 0x21)
	}
	for _, c := range []struct {
		what string
		data []byte
		want bool
	}{
		{"ELF", []byte("\x7fELF\x02\x01\x01\x00" + token + "\x00"), false},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), false},
		{"SQLite", []byte("SQLite format 3\x00\x10\x00"), true},
		{"unknown", []byte("\x00\x01\x02\x03 R35"), true},
		{"xz", []byte("\xfd7zXZ\x00\x00"), true},
		{"a jar of harmless classes", zipOf(map[string][]byte{"META-INF/MANIFEST.MF": []byte("Manifest-Version: 1.0\n"), "app/A.class": class("hello")}), false},
		{"a jar whose properties hold a password", zipOf(map[string][]byte{"config.properties": []byte("db.password=R35jarPw\n")}), true},
		{"a jar with a database", zipOf(map[string][]byte{"data/cache.db": []byte("SQLite format 3\x00")}), true},
		{"a class with a token", class("https://api.github.com", token), true},
		{"a class holding none", class("R35-HARMLESS"), false},
		{"a class cut short", class("x")[:14], true},
		{"a tar.gz of a .env", tgz("app/.env", []byte("DEPLOY_TOKEN=R35tarTk9\n")), true},
		{"a tar.gz of a README", tgz("app/README", []byte("hello\n")), false},
		{"a manual page", func() []byte {
			var b bytes.Buffer
			w := gzip.NewWriter(&b)
			w.Write([]byte(".TH APP 1\n.SH NAME\napp \\- does things\n"))
			w.Close()
			return b.Bytes()
		}(), false},
		{"a broken zip", []byte("PK\x03\x04\x00\x00R35-JAR\x00"), true},
		{"Rust's metadata", []byte("rust\x00\x00\x00\x08" + token), false},
		{"a certificate in DER", certificate(t), false},
		{"a key in DER", append([]byte("\x30\x82\x04\xa4\x02\x01\x00"), make([]byte, 32)...), true},
	} {
		read := func(limit int64) ([]byte, error) { return c.data, nil }
		text := func(_ string, b []byte) bool { return InSettings(b) }
		if got := InBinary("x", c.data[:min(len(c.data), BinaryHead)], read, text); got != c.want {
			t.Errorf("InBinary(%s) = %v, want %v", c.what, got, c.want)
		}
	}
	// Text in an archive is judged by its own name: a script's literal as
	// a script's.
	var names []string
	text := func(name string, b []byte) bool { names = append(names, name); return false }
	jar := zipOf(map[string][]byte{"lib/deploy.sh": []byte("echo hi\n")})
	InBinary("tools.jar", jar, func(int64) ([]byte, error) { return jar, nil }, text)
	gz := tgz("etc/app.conf", []byte("port 80\n"))
	InBinary("configs.tar.gz", gz, func(int64) ([]byte, error) { return gz, nil }, text)
	if want := []string{"lib/deploy.sh", "etc/app.conf"}; !slices.Equal(names, want) {
		t.Errorf("text judged as %q, want %q", names, want)
	}
}

// certificate is a self-signed certificate in DER.
func certificate(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "R35"}, NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
