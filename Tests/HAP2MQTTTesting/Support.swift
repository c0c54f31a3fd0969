import HomeModel
