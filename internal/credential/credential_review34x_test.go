package credential

import (
	"strings"
	"testing"
)

// TestXMLProperties: a credential XML gives as an element's name= or key=
// and value= attributes, in either order, as a name's element and the
// value's with a description, a comment or a CDATA section about them,
// as a servlet's <param-name> and <param-value>, as Java's properties in
// XML or as a property list's <key> and <string>, is found, in a small
// file and in a large one; the same shapes holding none (a user's name,
// an empty value, a switch, a variable's reference, a number, a name
// that says none) are not.
func TestXMLProperties(t *testing.T) {
	for text, want := range map[string]bool{
		`<property name="password" value="s3cretpw"/>`:                                                            true,
		`<bean id="ds"><property name="db.password" value="s3cretpw"/></bean>`:                                    true,
		`<Environment name="dbPassword" value="s3cretpw" type="java.lang.String"/>`:                               true,
		`<Environment type="java.lang.String" value="s3cretpw" name="dbPassword"/>`:                               true,
		`<add key="ApiPassword" value="hunter2x"/>`:                                                               true,
		`<Parameter name="apiKey" value="abcDEF123456ghi"/>`:                                                      true,
		"<init-param>\n<param-name>password</param-name>\n<param-value>s3cretpw</param-value>":                    true,
		"<name>fs.s3a.secret.key</name>\n<description>the key</description>\n<value>wJalrXUtnFEMIK7MDENG</value>": true,
		"<name>fs.s3a.secret.key</name>\n<!-- rotated -->\n<value>wJalrXUtnFEMIK7MDENG</value>":                   true,
		"<name>fs.s3a.secret.key</name><value><![CDATA[wJalrXUtnFEMIK7MDENG]]></value>":                           true,
		`<entry key="smtp.password">hunter2x</entry>`:                                                             true,
		"<key>api_token</key>\n<string>abcDEF123456ghi</string>":                                                  true,
		`<property name="username" value="app"/>`:                                                                 false,
		`<input name="password" value=""/>`:                                                                       false,
		`<property name="password" value="${DB_PASSWORD}"/>`:                                                      false,
		`<option name="SHOW_PASSWORD" value="false"/>`:                                                            false,
		`<entry key="password.min.length">8</entry>`:                                                              false,
		"<param-name>keyStoreType</param-name><param-value>JKS</param-value>":                                     false,
		"<param-name>contextConfigLocation</param-name><param-value>/WEB-INF/app.xml</param-value>":               false,
		"<key>CFBundleIdentifier</key><string>com.example.app</string>":                                           false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
	}
	big := make([]byte, 0, 40<<10)
	for len(big) < 32<<10 {
		big = append(big, "<property name=\"pool.size\" value=\"3\"/>\n<entry key=\"timeout\">30</entry>\n"...)
	}
	for _, text := range []string{
		"<property name=\"db.password\" value=\"s3cretpw\"/>\n",
		"<entry key=\"smtp.password\">hunter2x</entry>\n",
		"<init-param>\n<param-name>password</param-name>\n<description>" + strings.Repeat("the key ", 40) + "</description>\n<param-value>s3cretpw</param-value>\n",
	} {
		if InLargeSettings(big) || !InLargeSettings(append(big[:len(big):len(big)], text...)) {
			t.Errorf("InLargeSettings: want only a large XML whose property names a credential given a literal found: %q", text)
		}
	}
}

// BenchmarkInSettingsXML judges 16 KiB of Hadoop's and Spring's XML, its
// properties holding no credential, read whole for xmlProperty's shapes.
func BenchmarkInSettingsXML(b *testing.B) {
	var x strings.Builder
	x.WriteString("<configuration>\n")
	for i := 0; x.Len() < 16<<10-400; i++ {
		x.WriteString("  <property>\n    <name>dfs.namenode.handler.count</name>\n    <value>10</value>\n    <description>The number of server threads for the namenode.</description>\n  </property>\n")
		x.WriteString("  <bean id=\"pool\"><property name=\"maxTotal\" value=\"20\"/><property name=\"password\" value=\"${DB_PASSWORD}\"/></bean>\n")
	}
	x.WriteString("</configuration>\n")
	data := []byte(x.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if InSettings(data) {
			b.Fatal("want none found")
		}
	}
}
