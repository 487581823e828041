package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns their paths and the
// pool that trusts it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "swarm test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestServesHTTPSWithASecureCookie(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	srv := New(Config{Token: testToken, Backend: &fakeBackend{}, TLSCert: certFile, TLSKey: keyFile})
	if err := srv.LoadTLS(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "https://" + ln.Addr().String()
	if LoginURL(ln.Addr().String(), srv.TLS(), testToken) != base+"/login?token="+testToken {
		t.Fatalf("login link %s", LoginURL(ln.Addr().String(), srv.TLS(), testToken))
	}
	resp, err := client.Get(base + "/login?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	set := resp.Header.Get("Set-Cookie")
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound || !strings.Contains(set, "Secure") || !strings.Contains(set, "HttpOnly") {
		t.Fatalf("login over HTTPS: %d, cookie %q", resp.StatusCode, set)
	}
	// Plain HTTP on the port is told it spoke to an HTTPS server (Go's TLS listener answers
	// 400), and nothing more.
	if resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + ln.Addr().String() + "/api/v1/server"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("plain HTTP on the HTTPS port: %d", resp.StatusCode)
		}
	}
}

func TestABadCertificateIsRefusedBeforeServing(t *testing.T) {
	certFile, _, _ := selfSigned(t)
	srv := New(Config{Token: testToken, Backend: &fakeBackend{}, TLSCert: certFile, TLSKey: certFile})
	if err := srv.LoadTLS(); err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("a certificate given as its own key: %v", err)
	}
}
