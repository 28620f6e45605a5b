#include "plan/latency_model.h"

#include <gtest/gtest.h>

#include "plan/gpu_type.h"
#include "plan/model_spec.h"

namespace gpufleet::plan {
namespace {

TEST(ModelSpecTest, Llama2_70BShapes) {
  auto m = FindModel("llama2-70b");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  // Meta's model card: 70B parameters; GQA with 8 KV heads of 128 -> 320 KiB
  // of 16-bit KV per token over 80 layers.
  EXPECT_NEAR(m->TotalParams() / 1e9, 69.0, 1.0);
  EXPECT_DOUBLE_EQ(m->KvBytesPerToken(), 2.0 * 80 * 1024 * 2);
  auto mix = FindModel("Mixtral-8x7B");
  ASSERT_TRUE(mix.ok());
  EXPECT_NEAR(mix->TotalParams() / 1e9, 46.7, 1.0);        // 46.7B stored
  EXPECT_NEAR(mix->FlopsPerToken() / 2 / 1e9, 12.9, 0.5);  // 12.9B active
  auto bad = FindModel("llama2-7");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("did you mean"), std::string::npos);
}

TEST(ModelSpecTest, ParseErrorsNameTheField) {
  auto r = ParseModels("[[model]]\nkey = \"x\"\nlayers = \"many\"\n", "m.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("m.toml:3"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("layers"), std::string::npos);
}

TEST(LatencyModelTest, PrefillIsComputeBoundDecodeIsMemoryBound) {
  auto m = FindModel("llama2-70b");
  auto g = PeaksOf("h100-sxm");
  ASSERT_TRUE(m.ok() && g.ok());
  StepFeatures pre = PrefillFeatures(*m, *g, 8, 2048, 2048.0 * 2048);
  EXPECT_GT(pre.compute_s, pre.memory_s);
  StepFeatures dec = DecodeFeatures(*m, *g, 8, 1, 2048);
  EXPECT_GT(dec.memory_s, 10 * dec.compute_s);
  EXPECT_EQ(dec.all_reduces, 160);
  EXPECT_EQ(DecodeFeatures(*m, *g, 1, 1, 2048).all_reduces, 0);
}

TEST(LatencyModelTest, StepCostGivesTheSameTimesAsTheLatencyTable) {
  // The simulator's per-pool step costs must not move any plan: equal to
  // GpuLatency's, bit for bit, for dense and mixture-of-experts models.
  auto g = PeaksOf("h100-sxm");
  ASSERT_TRUE(g.ok());
  GpuLatency lat;
  lat.peaks = *g;
  lat.prefill = PhaseCoeffs{0.011, 1.7, 3.1, 1.0, 1.3, 2e-5};
  lat.decode = PhaseCoeffs{0.006, 2.2, 1.0, 1.4, 1.1, 7e-6};
  int checked = 0;
  for (const ModelSpec& m : ModelPresets()) {
    for (int tp : {1, 2, 8}) {
      StepCost cost(lat, m, tp);
      for (double batch : {0.0, 1.0, 3.0, 4.0, 17.0, 256.0}) {
        for (double ctx : {0.0, 1.0, 4097.0, 1.5e6}) {
          EXPECT_EQ(cost.DecodeS(batch, ctx), lat.DecodeS(m, tp, batch, ctx)) << m.key;
          EXPECT_EQ(cost.PrefillS(batch * 512, ctx * ctx),
                    lat.PrefillS(m, tp, batch * 512, ctx * ctx))
              << m.key;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
  // A mixture of experts reads the experts its batch touches (2 per token,
  // all 8 from a batch of 4); a dense model reads all its weights.
  auto mix = FindModel("mixtral-8x7b");
  auto dense = FindModel("llama2-70b");
  ASSERT_TRUE(mix.ok() && dense.ok());
  auto weights_s = [&](const ModelSpec& m, double batch) {
    return DecodeFeatures(m, *g, 2, batch, 0).memory_s;
  };
  EXPECT_LT(weights_s(*mix, 1), weights_s(*mix, 2));
  EXPECT_LT(weights_s(*mix, 2), weights_s(*mix, 4));
  EXPECT_EQ(weights_s(*mix, 4), weights_s(*mix, 8));
  EXPECT_EQ(weights_s(*dense, 1), weights_s(*dense, 8));
}

TEST(LatencyModelTest, FitRecoversCoefficientsOfExactRows) {
  // Rows built from a known set of coefficients are fitted back exactly.
  PhaseCoeffs truth;
  truth.overhead_s = 0.004;
  truth.compute_scale = 1.6;
  truth.memory_scale = 1.2;
  truth.comm_scale = 0;
  std::vector<StepFeatures> rows;
  std::vector<double> y;
  for (int i = 1; i <= 12; ++i) {
    StepFeatures f;
    f.compute_s = 0.001 * i * i;
    f.memory_s = 0.02 + 0.003 * (i % 5);
    rows.push_back(f);
    y.push_back(truth.Predict(f));
  }
  auto fit = FitPhase(rows, y);
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  EXPECT_NEAR(fit->overhead_s, truth.overhead_s, 1e-6);
  EXPECT_NEAR(fit->compute_scale, truth.compute_scale, 1e-6);
  EXPECT_NEAR(fit->memory_scale, truth.memory_scale, 1e-6);
}

TEST(LatencyModelTest, FitKeepsCoefficientsNonNegative) {
  // Times that fall as compute grows would need a negative scale: dropped.
  std::vector<StepFeatures> rows(4);
  std::vector<double> y = {0.010, 0.009, 0.008, 0.007};
  for (int i = 0; i < 4; ++i) rows[i].compute_s = 0.001 * (i + 1);
  auto fit = FitPhase(rows, y);
  ASSERT_TRUE(fit.ok());
  EXPECT_EQ(fit->compute_scale, 0);
  EXPECT_GT(fit->overhead_s, 0);
  EXPECT_FALSE(FitPhase(rows, {0.01, 0, 0.01, 0.01}).ok());
  EXPECT_FALSE(FitPhase({}, {}).ok());
}

}  // namespace
}  // namespace gpufleet::plan
