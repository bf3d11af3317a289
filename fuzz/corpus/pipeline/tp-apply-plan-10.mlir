module attributes {tp.plan = #tp.plan<mesh = @mesh, keys = [], styles = []>} {
  func.func @no_mesh() {
    return
  }
}
