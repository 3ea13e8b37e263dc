// European call and put prices by the Black-Scholes formula, two options per thread (the
// kernel of NVIDIA's cuda-samples BlackScholes, written out for this project): each thread
// prices the options in the two lanes of its float2 elements, with the polynomial
// approximation of the cumulative normal distribution and CUDA's fast intrinsics.
//
// Ported from the CUDA form in the three documented ways: __global__ became __device__, the
// block index is the first parameter, and the five float2* arrays are
// lightning::Vector<float2>. The two helpers and the body are unchanged, as is
// __launch_bounds__(128).

// The cumulative normal distribution by its 5-term polynomial approximation.
__device__ inline float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
              a5 = 1.330274429f;
  const float rsqrt_2pi = 0.39894228040143267793994605993438f;
  const float k = __fdividef(1.0f, 1.0f + 0.2316419f * fabsf(d));
  float c = rsqrt_2pi * __expf(-0.5f * d * d) *
            (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0f - c;
  return c;
}

// Call and put prices of one option: stock price s, strike x, years t, riskless rate r,
// volatility v.
__device__ inline void black_scholes_body(float& call, float& put, float s, float x, float t,
                                          float r, float v) {
  const float sqrt_t = __fdividef(1.0f, rsqrtf(t));
  const float d1 = __fdividef(__logf(s / x) + (r + 0.5f * v * v) * t, v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float cnd_d1 = cnd(d1), cnd_d2 = cnd(d2);
  const float exp_rt = __expf(-r * t);
  call = s * cnd_d1 - x * exp_rt * cnd_d2;
  put = x * exp_rt * (1.0f - cnd_d2) - s * (1.0f - cnd_d1);
}

// Prices options 2 * opt and 2 * opt + 1 (the lanes of element opt); opt_n options in all.
__launch_bounds__(128) __device__ void black_scholes(
    dim3 blockIdx, lightning::Vector<float2> call, lightning::Vector<float2> put,
    lightning::Vector<float2> stock_price, lightning::Vector<float2> option_strike,
    lightning::Vector<float2> option_years, float riskfree, float volatility, int opt_n) {
  const int opt = blockDim.x * blockIdx.x + threadIdx.x;
  if (opt < opt_n / 2) {
    float call1, call2, put1, put2;
    black_scholes_body(call1, put1, stock_price[opt].x, option_strike[opt].x,
                       option_years[opt].x, riskfree, volatility);
    black_scholes_body(call2, put2, stock_price[opt].y, option_strike[opt].y,
                       option_years[opt].y, riskfree, volatility);
    call[opt] = make_float2(call1, call2);
    put[opt] = make_float2(put1, put2);
  }
}
