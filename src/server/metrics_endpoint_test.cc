#include "server/metrics_endpoint.h"

#include <gtest/gtest.h>

#include <string>

#include "server/metrics_exposition.h"

namespace vireo {
namespace {

TEST(MetricsEndpointTest, GetMetricsOnceTheHeadersEnd) {
  EXPECT_EQ(ClassifyMetricsRequest(""), MetricsRequest::kIncomplete);
  EXPECT_EQ(ClassifyMetricsRequest("GET /metrics HTTP/1.1\r\nHost: x\r\n"),
            MetricsRequest::kIncomplete);
  EXPECT_EQ(ClassifyMetricsRequest("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
            MetricsRequest::kMetrics);
  EXPECT_EQ(ClassifyMetricsRequest("GET /metrics HTTP/1.0\n\n"), MetricsRequest::kMetrics);
  EXPECT_EQ(ClassifyMetricsRequest("GET /metrics?name[]=x HTTP/1.1\r\n\r\n"),
            MetricsRequest::kMetrics);
}

TEST(MetricsEndpointTest, OtherRequestsAreRefused) {
  EXPECT_EQ(ClassifyMetricsRequest("GET / HTTP/1.1\r\n\r\n"), MetricsRequest::kNotFound);
  EXPECT_EQ(ClassifyMetricsRequest("GET /metricsx HTTP/1.1\r\n\r\n"), MetricsRequest::kNotFound);
  EXPECT_EQ(ClassifyMetricsRequest("POST /metrics HTTP/1.1\r\n\r\n"),
            MetricsRequest::kMethodNotAllowed);
  EXPECT_EQ(ClassifyMetricsRequest("get /metrics HTTP/1.1\r\n\r\n"),
            MetricsRequest::kMethodNotAllowed);
  EXPECT_EQ(ClassifyMetricsRequest("GET /metrics\r\n\r\n"), MetricsRequest::kBadRequest);
  EXPECT_EQ(ClassifyMetricsRequest("GET /metrics HTTP/2.0\r\n\r\n"), MetricsRequest::kBadRequest);
  EXPECT_EQ(ClassifyMetricsRequest("GET  /metrics HTTP/1.1\r\n\r\n"), MetricsRequest::kBadRequest);
  EXPECT_EQ(ClassifyMetricsRequest("*1\r\n$4\r\nPING\r\n\r\n"), MetricsRequest::kBadRequest);
}

TEST(MetricsEndpointTest, RequestsAreBounded) {
  std::string big = "GET /metrics HTTP/1.1\r\nX: " + std::string(kMetricsMaxRequestBytes, 'a');
  EXPECT_EQ(ClassifyMetricsRequest(big), MetricsRequest::kTooLarge);
  EXPECT_EQ(ClassifyMetricsRequest(big + "\r\n\r\n"), MetricsRequest::kTooLarge);
}

TEST(MetricsEndpointTest, ResponsesCloseAndCarryTheirLength) {
  std::string ok = MetricsResponse(MetricsRequest::kMetrics, "vireo_a 1\n");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << ok;
  EXPECT_NE(ok.find(std::string("Content-Type: ") + kMetricsContentType + "\r\n"),
            std::string::npos);
  EXPECT_NE(ok.find("Content-Length: 10\r\n"), std::string::npos) << ok;
  EXPECT_NE(ok.find("Connection: close\r\n"), std::string::npos) << ok;
  EXPECT_EQ(ok.substr(ok.size() - 14), "\r\n\r\nvireo_a 1\n");
  EXPECT_EQ(MetricsResponse(MetricsRequest::kNotFound, "x").rfind("HTTP/1.1 404 ", 0), 0u);
  std::string not_allowed = MetricsResponse(MetricsRequest::kMethodNotAllowed, "");
  EXPECT_EQ(not_allowed.rfind("HTTP/1.1 405 ", 0), 0u);
  EXPECT_NE(not_allowed.find("Allow: GET\r\n"), std::string::npos);
  EXPECT_EQ(MetricsResponse(MetricsRequest::kBadRequest, "").rfind("HTTP/1.1 400 ", 0), 0u);
  EXPECT_EQ(MetricsResponse(MetricsRequest::kTooLarge, "").rfind("HTTP/1.1 431 ", 0), 0u);
}

}  // namespace
}  // namespace vireo
