#include "net/tls_context.h"

#include <gtest/gtest.h>

namespace vireo {
namespace {

TEST(TlsProtocols, EmptyMeansTls12And13) {
  unsigned mask = 0;
  ASSERT_TRUE(ParseTlsProtocols("", &mask));
  EXPECT_EQ(mask, kTlsV1_2 | kTlsV1_3);
  ASSERT_TRUE(ParseTlsProtocols("   ", &mask));
  EXPECT_EQ(mask, kTlsV1_2 | kTlsV1_3);
}

TEST(TlsProtocols, NamesAreCaseInsensitiveAndSpaceSeparated) {
  unsigned mask = 0;
  ASSERT_TRUE(ParseTlsProtocols("TLSv1.3", &mask));
  EXPECT_EQ(mask, kTlsV1_3);
  ASSERT_TRUE(ParseTlsProtocols("tlsv1  TLSV1.1 TLSv1.2", &mask));
  EXPECT_EQ(mask, kTlsV1 | kTlsV1_1 | kTlsV1_2);
  ASSERT_TRUE(ParseTlsProtocols(" TLSv1.2 TLSv1.2 ", &mask));
  EXPECT_EQ(mask, kTlsV1_2);
}

TEST(TlsProtocols, UnknownNamesAreRefused) {
  unsigned mask = 123;
  EXPECT_FALSE(ParseTlsProtocols("TLSv1.4", &mask));
  EXPECT_FALSE(ParseTlsProtocols("TLSv1.2,TLSv1.3", &mask));
  EXPECT_FALSE(ParseTlsProtocols("SSLv3", &mask));
  EXPECT_FALSE(ParseTlsProtocols("TLSv1.2 bogus", &mask));
  EXPECT_FALSE(ParseTlsProtocols("TLSv1.", &mask));
  EXPECT_EQ(mask, 123u);  // untouched on failure
}

TEST(TlsContext, MissingFilesAreReportedAsValkeyLogsThem) {
  TlsOptions o;
  std::string error;
  EXPECT_EQ(TlsContext::Create(o, &error), nullptr);
  EXPECT_EQ(error, "No tls-cert-file configured!");
  o.cert_file = "/nonexistent/cert.pem";
  EXPECT_EQ(TlsContext::Create(o, &error), nullptr);
  EXPECT_EQ(error, "No tls-key-file configured!");
  o.key_file = "/nonexistent/key.pem";
  EXPECT_EQ(TlsContext::Create(o, &error), nullptr);
  EXPECT_NE(error.find("Either tls-ca-cert-file or tls-ca-cert-dir"), std::string::npos);
  o.auth_clients = TlsClientAuth::kNo;
  EXPECT_EQ(TlsContext::Create(o, &error), nullptr);
  EXPECT_EQ(error.rfind("Failed to load certificate: /nonexistent/cert.pem: ", 0), 0u) << error;
  o.protocols = "TLSv2";
  EXPECT_EQ(TlsContext::Create(o, &error), nullptr);
  EXPECT_EQ(error.rfind("Invalid tls-protocols specified.", 0), 0u) << error;
}

}  // namespace
}  // namespace vireo
