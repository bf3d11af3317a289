func.func @forward( {
