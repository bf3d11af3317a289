func.func private @custom_params() attributes {tp.style = #tp.custom<name = "Mine", params = {weight = 1 : i64}>}
