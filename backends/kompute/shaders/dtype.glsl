// Storage type T and compute type C of one build, chosen by -DDT_F32 / -DDT_F16 / -DDT_F64.
// Halves are stored natively (16-bit storage) and computed in f32; f64 is native double.
#if defined(DT_F16)
#extension GL_EXT_shader_16bit_storage : require
#define T float16_t
#define C float
#elif defined(DT_F64)
#define T double
#define C double
#define C_IS_DOUBLE
#else
#define T float
#define C float
#endif
