/* Linker version script: a Python extension exports only its PyInit function. Everything else
   (our C++ API, inlined libstdc++ templates) stays local, so two extensions never interpose. */
{
  global:
    %{symbols}
  local:
    *;
};
